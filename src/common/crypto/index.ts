export { CryptoModule } from './crypto.module';
export { signJwt, verifyJwt } from './jwt';
export { burnPasswordCheck, hashPassword, verifyPassword } from './password';
export { ServerSecrets } from './server-secrets';
export { hmacSha256Hex, randomToken, safeEqual, sha256Hex } from './tokens';
export { SecretVault } from './secret-vault';
