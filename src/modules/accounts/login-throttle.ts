import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';

/** A throttle that started to apply with the failure just recorded; each is audited once, when it engages. */
export type ThrottleEngagement = 'account_source' | 'source' | 'account_backstop';

export interface LoginAdmission {
  /** How long to hold the attempt before checking the password: non-zero only under the account-wide backstop. */
  readonly delayMs: number;
}

/**
 * Throttles failed logins per (account, client address) and per client address, which refuses (429) only the
 * sources that failed. Failures against one account from everywhere only slow that account's logins down (the
 * backstop), so nobody can lock a known account out by guessing its password from elsewhere. Replicas share the
 * counts (WindowCounters).
 */
@Injectable()
export class LoginThrottle {
  private readonly byAccountSource: WindowCounter;
  private readonly bySource: WindowCounter;
  private readonly byAccount: WindowCounter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    counters: WindowCounters,
  ) {
    const windowMs = config.loginFailureWindowS * 1000;
    this.byAccountSource = counters.create('login_account_source', config.loginFailuresPerSource, windowMs);
    this.bySource = counters.create('login_source', config.loginFailuresPerIp, windowMs);
    this.byAccount = counters.create('login_account', config.loginAccountBackstop + 1, windowMs);
  }

  /** Throws 429 rate_limited for a throttled source; otherwise says how long to delay the attempt. */
  async admit(email: string, ip: string, now = Date.now()): Promise<LoginAdmission> {
    const waitMs = Math.max(
      await this.byAccountSource.retryAfterMs([email, ip], now),
      await this.bySource.retryAfterMs([ip], now),
    );
    if (waitMs > 0) {
      throw AppError.retryLater(
        'rate_limited',
        waitMs,
        'Too many failed logins from this address: retry later.',
      );
    }
    const overBackstop = (await this.byAccount.retryAfterMs([email], now)) > 0;
    return { delayMs: overBackstop ? this.config.loginBackstopDelayS * 1000 : 0 };
  }

  async recordFailure(email: string, ip: string, now = Date.now()): Promise<ThrottleEngagement[]> {
    const engaged: ThrottleEngagement[] = [];
    if ((await this.byAccountSource.hit([email, ip], now)) === this.config.loginFailuresPerSource) {
      engaged.push('account_source');
    }
    if ((await this.bySource.hit([ip], now)) === this.config.loginFailuresPerIp) engaged.push('source');
    if ((await this.byAccount.hit([email], now)) === this.config.loginAccountBackstop + 1)
      engaged.push('account_backstop');
    return engaged;
  }

  /** A successful login clears its own source only: failures from elsewhere still count against the account. */
  recordSuccess(email: string, ip: string): Promise<void> {
    return this.byAccountSource.resetPrefix([email, ip]);
  }

  /** A password reset proves control of the mailbox: every count against the account goes. */
  async clearAccount(email: string): Promise<void> {
    await this.byAccount.resetPrefix([email]);
    await this.byAccountSource.resetPrefix([email]);
  }
}
