import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config';
import { loadOrCreateSecretFile } from './secret-file';

/** A configured secret is used as given (its UTF-8 bytes, as HS256 tools expect); otherwise a file in the keys dir. */
function secretFrom(configured: string | undefined, file: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  return loadOrCreateSecretFile(file);
}

// Kept outside the database: from the environment when set, else generated in `<data dir>/keys/` (0600).
@Injectable()
export class ServerSecrets {
  readonly jwtKey: Buffer;
  readonly apiKeyPepper: Buffer;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.jwtKey = secretFrom(config.jwtSecret, join(config.keysDir, 'session-jwt.key'));
    this.apiKeyPepper = secretFrom(config.apiKeyPepper, join(config.keysDir, 'api-key-pepper.key'));
  }

  named(name: string): Buffer {
    if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`Invalid secret name "${name}".`);
    return loadOrCreateSecretFile(join(this.config.keysDir, `${name}.key`));
  }
}
