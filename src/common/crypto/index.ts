export { CryptoModule } from './crypto.module';
export { signJwt, verifyJwt } from './jwt';
export type { JwtClaims, JwtFailure, JwtVerification } from './jwt';
export { burnPasswordCheck, hashPassword, verifyPassword } from './password';
export { loadOrCreateSecretFile } from './secret-file';
export { ServerSecrets } from './server-secrets';
export { hmacSha256Hex, randomToken, safeEqual, sha256Hex } from './tokens';
export { SecretVault, SecretVaultError } from './secret-vault';
