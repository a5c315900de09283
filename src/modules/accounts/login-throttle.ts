import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { SlidingWindowLimiter } from '../../common/sliding-window-limiter';

/** A throttle that started to apply with the failure just recorded; each is audited once, when it engages. */
export type ThrottleEngagement = 'account_source' | 'source' | 'account_backstop';

export interface LoginAdmission {
  /** How long to hold the attempt before checking the password: non-zero only under the account-wide backstop. */
  readonly delayMs: number;
}

/**
 * Throttles failed logins per (account, client address) and per client address, which refuses (429) only the
 * sources that failed. Failures against one account from everywhere only slow that account's logins down (the
 * backstop), so nobody can lock a known account out by guessing its password from elsewhere.
 */
@Injectable()
export class LoginThrottle {
  private readonly byAccountSource: SlidingWindowLimiter;
  private readonly bySource: SlidingWindowLimiter;
  private readonly byAccount: SlidingWindowLimiter;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const windowMs = config.loginFailureWindowS * 1000;
    this.byAccountSource = new SlidingWindowLimiter(config.loginFailuresPerSource, windowMs);
    this.bySource = new SlidingWindowLimiter(config.loginFailuresPerIp, windowMs);
    this.byAccount = new SlidingWindowLimiter(config.loginAccountBackstop + 1, windowMs);
  }

  /** Throws 429 rate_limited for a throttled source; otherwise says how long to delay the attempt. */
  admit(email: string, ip: string, now = Date.now()): LoginAdmission {
    const waitMs = Math.max(
      this.byAccountSource.retryAfterMs(pairKey(email, ip), now),
      this.bySource.retryAfterMs(ip, now),
    );
    if (waitMs > 0) {
      throw AppError.retryLater(
        'rate_limited',
        waitMs,
        'Too many failed logins from this address: retry later.',
      );
    }
    const overBackstop = this.byAccount.retryAfterMs(email, now) > 0;
    return { delayMs: overBackstop ? this.config.loginBackstopDelayS * 1000 : 0 };
  }

  recordFailure(email: string, ip: string, now = Date.now()): ThrottleEngagement[] {
    const engaged: ThrottleEngagement[] = [];
    if (this.byAccountSource.hit(pairKey(email, ip), now) === this.config.loginFailuresPerSource) {
      engaged.push('account_source');
    }
    if (this.bySource.hit(ip, now) === this.config.loginFailuresPerIp) engaged.push('source');
    if (this.byAccount.hit(email, now) === this.config.loginAccountBackstop + 1)
      engaged.push('account_backstop');
    return engaged;
  }

  /** A successful login clears its own source only: failures from elsewhere still count against the account. */
  recordSuccess(email: string, ip: string): void {
    this.byAccountSource.reset(pairKey(email, ip));
  }

  /** A password reset proves control of the mailbox: every count against the account goes. */
  clearAccount(email: string): void {
    this.byAccount.reset(email);
    this.byAccountSource.resetWhere((key) => key.startsWith(`${email}\n`));
  }
}

function pairKey(email: string, ip: string): string {
  return `${email}\n${ip}`;
}
