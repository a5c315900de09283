import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { SlidingWindowLimiter } from '../../common/sliding-window-limiter';
import { isWellFormedApiKey, keyPrefixOf } from '../api-keys/api-keys.types';
import { AuditService } from '../audit/audit.service';

/**
 * Throttles and audits failed API-key presentations per client address. Only the failure path and the database
 * lookup of an uncached key consult it: a key answered from memory never does, so valid traffic pays nothing.
 */
@Injectable()
export class KeyFailureThrottle {
  private readonly bySource: SlidingWindowLimiter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {
    this.bySource = new SlidingWindowLimiter(config.apiKeyFailuresPerIp, config.apiKeyFailureWindowS * 1000);
  }

  /** Throws 429 rate_limited with Retry-After while the address is over its limit of failures. */
  assertAllowed(ip: string): void {
    const waitMs = this.bySource.retryAfterMs(ip);
    if (waitMs <= 0) return;
    throw AppError.retryLater(
      'rate_limited',
      waitMs,
      'Too many invalid API keys from this address: retry later.',
    );
  }

  /**
   * Counts a rejected credential and audits it with at most the key's non-secret prefix. Attempts refused by the
   * throttle never get here, so the audit log grows by at most the limit per address and window.
   */
  async recordFailure(ip: string, rawCredential: string, reason: string): Promise<never> {
    const failures = this.bySource.hit(ip);
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
