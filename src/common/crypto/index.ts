export { CryptoModule } from './crypto.module';
export { signJwt, verifyJwt } from './jwt';
export { hashPassword, verifyPassword } from './password';
export { PasswordHasher } from './password-hasher';
export { ServerSecrets } from './server-secrets';
export { hmacSha256Hex, randomToken, safeEqual, sha256Hex } from './tokens';
export { SecretVault } from './secret-vault';
