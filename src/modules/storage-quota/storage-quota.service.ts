import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';

export type UsageSource = (orgId: string) => Promise<number>;

/**
 * Measured from disk on every check rather than kept as a counter, so a crash or a manual clean-up cannot make it
 * drift.
 */
@Injectable()
export class StorageQuotaService {
  private readonly sources = new Map<string, UsageSource>();
  private readonly quotaBytes: number;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'orgStorageQuotaMb'>) {
    this.quotaBytes = config.orgStorageQuotaMb * 1024 * 1024;
  }

  get isEnabled(): boolean {
    return this.quotaBytes > 0;
  }

  registerSource(name: string, source: UsageSource): void {
    this.sources.set(name, source);
  }

  async bytesInUse(orgId: string): Promise<number> {
    let total = 0;
    for (const source of this.sources.values()) total += await source(orgId);
    return total;
  }

  async remainingBytes(orgId: string): Promise<number> {
    if (!this.isEnabled) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.quotaBytes - (await this.bytesInUse(orgId)));
  }

  async assertRoomFor(orgId: string, bytes: number): Promise<void> {
    if (!this.isEnabled) return;
    const inUse = await this.bytesInUse(orgId);
    if (inUse + bytes > this.quotaBytes) throw this.exceeded(inUse, bytes);
  }

  exceeded(inUse: number, adding: number): AppError {
    return new AppError(
      'insufficient_storage',
      `This would exceed the organization's storage quota of ${this.quotaBytes} bytes ` +
        `(SERVICE_ORG_STORAGE_QUOTA_MB): ${inUse} bytes are in use and this adds ${adding}. ` +
        'Delete datasets or uploads, or ask the operator for a larger quota.',
    );
  }
}

export { directoryBytes, fileBytes } from './directory-bytes';
