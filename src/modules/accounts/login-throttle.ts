import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';

/** A throttle that started to apply with the failure just recorded; each is audited once, when it engages. */
export type ThrottleEngagement = 'account_source' | 'source' | 'account_backstop';

/** An attempt let through to the password check; it holds its place in the counts until it fails or succeeds. */
export interface LoginAttempt {
  readonly email: string;
  readonly ip: string;
  readonly at: number;
  /** How long to hold the attempt before checking the password: non-zero only under the account-wide backstop. */
  readonly delayMs: number;
  readonly accountSourceCount: number;
  readonly sourceCount: number;
}

/**
 * Throttles failed logins per (account, address) and per address (429 for those sources only); failures against an
 * account from everywhere only slow it down, so nobody can lock a known account out. Replicas share the counts.
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

  /** Counts the attempt before the password check, so of a concurrent burst at most the limit reach the check. */
  async admit(email: string, ip: string, now = Date.now()): Promise<LoginAttempt> {
    const accountSourceCount = await this.byAccountSource.tryHit([email, ip], now);
    const sourceCount = accountSourceCount === null ? null : await this.bySource.tryHit([ip], now);
    if (accountSourceCount === null || sourceCount === null) {
      if (accountSourceCount !== null) await this.byAccountSource.release([email, ip], now);
      const waitMs = Math.max(
        await this.byAccountSource.retryAfterMs([email, ip], now),
        await this.bySource.retryAfterMs([ip], now),
      );
      throw AppError.retryLater(
        'rate_limited',
        waitMs,
        'Too many failed logins from this address: retry later.',
      );
    }
    const overBackstop = (await this.byAccount.retryAfterMs([email], now)) > 0;
    return {
      email,
      ip,
      at: now,
      delayMs: overBackstop ? this.config.loginBackstopDelayS * 1000 : 0,
      accountSourceCount,
      sourceCount,
    };
  }

  async recordFailure(attempt: LoginAttempt, now = Date.now()): Promise<ThrottleEngagement[]> {
    const engaged: ThrottleEngagement[] = [];
    if (attempt.accountSourceCount === this.config.loginFailuresPerSource) engaged.push('account_source');
    if (attempt.sourceCount === this.config.loginFailuresPerIp) engaged.push('source');
    if ((await this.byAccount.hit([attempt.email], now)) === this.config.loginAccountBackstop + 1)
      engaged.push('account_backstop');
    return engaged;
  }

  /** A successful login clears its own source only: failures from elsewhere still count against the account. */
  async recordSuccess(attempt: LoginAttempt): Promise<void> {
    await this.byAccountSource.resetPrefix([attempt.email, attempt.ip]);
    await this.bySource.release([attempt.ip], attempt.at);
  }

  async release(attempt: LoginAttempt): Promise<void> {
    await this.byAccountSource.release([attempt.email, attempt.ip], attempt.at);
    await this.bySource.release([attempt.ip], attempt.at);
  }

  /** A password reset proves control of the mailbox: every count against the account goes. */
  async clearAccount(email: string): Promise<void> {
    await this.byAccount.resetPrefix([email]);
    await this.byAccountSource.resetPrefix([email]);
  }
}
