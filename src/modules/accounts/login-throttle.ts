import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { Counted, WindowCounter, WindowCounters } from '../../common/rate-limits';

/** A throttle that started to apply with the failure just recorded; each is audited once, when it engages. */
export type ThrottleEngagement = 'account_source' | 'source' | 'account_backstop';

/** An attempt let through to the password check; it holds its place in the counts until it fails or succeeds. */
export interface LoginAttempt {
  readonly email: string;
  readonly ip: string;
  /** How long to hold the attempt before checking the password: non-zero only under the account-wide backstop. */
  readonly delayMs: number;
  readonly accountSourceKey: readonly string[];
  readonly accountSource: Counted;
  readonly source: Counted;
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
  /**
   * Password resets per account, never expiring: part of every (account, address) key, so a reset starts the
   * account's counts afresh on every replica without deleting keys it cannot list.
   */
  private readonly resets: WindowCounter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    counters: WindowCounters,
  ) {
    const windowS = config.loginFailureWindowS;
    this.byAccountSource = counters.create('login_account_source', config.loginFailuresPerSource, windowS);
    this.bySource = counters.create('login_source', config.loginFailuresPerIp, windowS);
    this.byAccount = counters.create('login_account', config.loginAccountBackstop + 1, windowS);
    this.resets = counters.create('login_account_resets', 1, 0);
  }

  /** Counts the attempt before the password check, so of a concurrent burst at most the limit reach the check. */
  async admit(email: string, ip: string): Promise<LoginAttempt> {
    const accountSourceKey = [email, String(await this.resets.count([email])), ip];
    const source = await this.bySource.take([ip]);
    if (!source.counted) {
      throw refused(Math.max(source.retryAfterMs, await this.byAccountSource.retryAfterMs(accountSourceKey)));
    }
    const accountSource = await this.byAccountSource.take(accountSourceKey);
    if (!accountSource.counted) {
      await this.bySource.release([ip], source);
      throw refused(Math.max(accountSource.retryAfterMs, await this.bySource.retryAfterMs([ip])));
    }
    const overBackstop = (await this.byAccount.retryAfterMs([email])) > 0;
    return {
      email,
      ip,
      delayMs: overBackstop ? this.config.loginBackstopDelayS * 1000 : 0,
      accountSourceKey,
      accountSource,
      source,
    };
  }

  async recordFailure(attempt: LoginAttempt): Promise<ThrottleEngagement[]> {
    const engaged: ThrottleEngagement[] = [];
    if (attempt.accountSource.count === this.config.loginFailuresPerSource) engaged.push('account_source');
    if (attempt.source.count === this.config.loginFailuresPerIp) engaged.push('source');
    if ((await this.byAccount.hit([attempt.email])) === this.config.loginAccountBackstop + 1)
      engaged.push('account_backstop');
    return engaged;
  }

  /** A successful login clears its own source only: failures from elsewhere still count against the account. */
  async recordSuccess(attempt: LoginAttempt): Promise<void> {
    await this.byAccountSource.reset(attempt.accountSourceKey);
    await this.bySource.release([attempt.ip], attempt.source);
  }

  async release(attempt: LoginAttempt): Promise<void> {
    await this.byAccountSource.release(attempt.accountSourceKey, attempt.accountSource);
    await this.bySource.release([attempt.ip], attempt.source);
  }

  /** A password reset proves control of the mailbox: every count against the account goes. */
  async clearAccount(email: string): Promise<void> {
    await this.resets.hit([email]);
    await this.byAccount.reset([email]);
  }
}

function refused(waitMs: number): AppError {
  return AppError.retryLater(
    'rate_limited',
    waitMs,
    'Too many failed logins from this address: retry later.',
  );
}
