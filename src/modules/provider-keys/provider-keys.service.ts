import { Inject, Injectable } from '@nestjs/common';
import { SecretVault } from '../../common/crypto/secret-vault';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { ProviderKey, providerKeyAad } from './provider-key.entity';
import { ProviderKeyRepository } from './provider-key.repository';

@Injectable()
export class ProviderKeysService {
  constructor(
    private readonly vault: SecretVault,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly repository: ProviderKeyRepository,
  ) {}

  async set(orgId: string, backend: string, secret: string): Promise<ProviderKey> {
    this.requireConfiguredKey();
    const stored = await this.repository.upsert(
      orgId,
      backend,
      this.vault.seal(secret, providerKeyAad(orgId, backend)),
    );
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

  async reveal(orgId: string, backend: string): Promise<string | undefined> {
    const sealed = await this.repository.findSealed(orgId, backend);
    if (sealed === undefined) return undefined;
    this.requireConfiguredKey();
    return this.vault.open(sealed, providerKeyAad(orgId, backend));
  }

  /** Provider keys are sealed only with SERVICE_CONFIG_ENCRYPTION_KEY, never with the generated file key. */
  private requireConfiguredKey(): void {
    if (!this.vault.hasConfiguredKey) throw new AppError('encryption_key_required');
  }
}
