import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { openSecret, sealSecret } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { ProviderKey, providerKeyAad } from './provider-key.entity';
import { ProviderKeyRepository } from './provider-key.repository';
import { MAX_PROVIDER_SECRET_BYTES } from './provider-keys.dto';

/** Write-only provider secrets (BYOK): sealed with AES-256-GCM, readable only by the daemon's own features. */
@Injectable()
export class ProviderKeysService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly repository: ProviderKeyRepository,
  ) {}

  async set(orgId: string, backend: string, secret: string): Promise<ProviderKey> {
    if (secret.trim() === '') throw AppError.validation([{ field: 'api_key', problem: 'must not be empty' }]);
    if (Buffer.byteLength(secret, 'utf8') > MAX_PROVIDER_SECRET_BYTES) {
      throw AppError.validation([{ field: 'api_key', problem: `must be at most ${MAX_PROVIDER_SECRET_BYTES} bytes` }]);
    }
    const key = this.encryptionKey();
    const stored = await this.repository.upsert(orgId, backend, sealSecret(key, secret, providerKeyAad(orgId, backend)));
    this.logger.info({ event: 'provider_key_set', org_id: orgId, backend }, 'provider key stored');
    return stored;
  }

  list(orgId: string): Promise<ProviderKey[]> {
    return this.repository.list(orgId);
  }

  async delete(orgId: string, backend: string): Promise<void> {
    if (!(await this.repository.delete(orgId, backend))) throw new AppError('provider_key_not_found');
    this.logger.info({ event: 'provider_key_deleted', org_id: orgId, backend }, 'provider key deleted');
  }

  /** For the daemon's own use (never for an HTTP answer): the clear secret, or undefined when none is stored. */
  async reveal(orgId: string, backend: string): Promise<string | undefined> {
    const sealed = await this.repository.findSealed(orgId, backend);
    if (sealed === undefined) return undefined;
    return openSecret(this.encryptionKey(), sealed, providerKeyAad(orgId, backend));
  }

  private encryptionKey(): Buffer {
    const key = this.config.configEncryptionKey;
    if (!key) throw new AppError('encryption_key_required');
    return key;
  }
}
