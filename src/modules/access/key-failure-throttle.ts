import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';
import { isWellFormedApiKey, keyPrefixOf } from '../api-keys/api-keys.types';
import { AuditService } from '../audit/audit.service';

/** Throttles and audits failed API-key presentations per address; keys answered from memory never consult it. */
@Injectable()
export class KeyFailureThrottle {
  private readonly bySource: WindowCounter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    counters: WindowCounters,
  ) {
    this.bySource = counters.create(
      'api_key_source',
      config.apiKeyFailuresPerIp,
      config.apiKeyFailureWindowS,
    );
  }

  async assertAllowed(ip: string): Promise<void> {
    const waitMs = await this.bySource.retryAfterMs([ip]);
    if (waitMs <= 0) return;
    throw AppError.retryLater(
      'rate_limited',
      waitMs,
      'Too many invalid API keys from this address: retry later.',
    );
  }

  /** Audits a rejected credential by its non-secret prefix; throttled attempts never get here (a bounded log). */
  async recordFailure(ip: string, rawCredential: string, reason: string): Promise<never> {
    const failures = await this.bySource.hit([ip]);
    await this.audit.record({
      event: 'api_key_rejected',
      actor: { type: 'anonymous' },
      ip,
      details: {
        reason,
        key_prefix: isWellFormedApiKey(rawCredential) ? keyPrefixOf(rawCredential) : null,
      },
    });
    if (failures === this.config.apiKeyFailuresPerIp) {
      await this.audit.record({
        event: 'api_key_throttled',
        actor: { type: 'anonymous' },
        ip,
        details: { failures, window_s: this.config.apiKeyFailureWindowS },
      });
    }
    throw new AppError('invalid_api_key');
  }
}
