import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config';
import { loadOrCreateSecretFile } from './secret-file';

/** A configured secret is used as given (its UTF-8 bytes, as HS256 tools expect); otherwise a file in the keys dir. */
function secretFrom(configured: string | undefined, file: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  return loadOrCreateSecretFile(file);
}

/**
 * The daemon's own secrets, kept outside the database: the session-token signing key and the API-key hashing key.
 * Both come from the environment when set (SERVICE_JWT_SECRET, SERVICE_API_KEY_PEPPER), else from
 * `<data dir>/keys/*.key`, generated with mode 0600 on first start.
 */
@Injectable()
export class ServerSecrets {
  readonly jwtKey: Buffer;
  readonly apiKeyPepper: Buffer;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.jwtKey = secretFrom(config.jwtSecret, join(config.keysDir, 'session-jwt.key'));
    this.apiKeyPepper = secretFrom(config.apiKeyPepper, join(config.keysDir, 'api-key-pepper.key'));
  }

  /** Any other named secret the daemon keeps for itself (32 random bytes, created on first use). */
  named(name: string): Buffer {
    if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`Invalid secret name "${name}".`);
    return loadOrCreateSecretFile(join(this.config.keysDir, `${name}.key`));
  }
}
