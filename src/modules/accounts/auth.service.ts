import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { PasswordHasher, sha256Hex } from '../../common/crypto';
import { transactionOf } from '../../common/database';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { AuditService } from '../audit/audit.service';
import { AuditActor } from '../audit/audit.types';
import { AuthTokenPurpose, UserEntity } from './account.entities';
import { AccountMailer } from './account-mailer';
import { AccountsRepository } from './accounts.repository';
import { normalizeEmail } from './accounts.types';
import { LoginThrottle, ThrottleEngagement } from './login-throttle';
import { SessionsService } from './sessions.service';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';

/** Reset mails per address per hour; beyond it requests are answered the same but send nothing (no mail bombing). */
const RESET_MAILS_PER_HOUR = 3;

@Injectable()
export class AuthService implements OnApplicationShutdown {
  /** forgot-password work runs after the answer is sent; shutdown waits for it. */
  private readonly pending = new Set<Promise<void>>();
  private readonly resetMails: WindowCounter;

  constructor(
    private readonly repository: AccountsRepository,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
    private readonly mailer: AccountMailer,
    private readonly audit: AuditService,
    private readonly passwords: PasswordHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    counters: WindowCounters,
  ) {
    this.resetMails = counters.create('password_reset_mail', RESET_MAILS_PER_HOUR, 3600);
  }

  /** Unknown address, missing password and wrong password all answer the same 401, after the same work. */
  async login(rawEmail: string, password: string, ip: string): Promise<{ token: string; expiresIn: number }> {
    const email = normalizeEmail(rawEmail);
    const attempt = await this.throttle.admit(email, ip);
    const { delayMs } = attempt;
    let user: UserEntity | null;
    let matches: boolean;
    try {
      if (delayMs > 0) await sleep(delayMs);
      user = await this.repository.findUserByEmail(email);
      matches = user?.passwordHash
        ? await this.passwords.verify(password, user.passwordHash)
        : await this.passwords.burn(password).then(() => false);
    } catch (error) {
      // No password was checked (a full hashing queue, an unreachable store): the attempt does not count.
      await this.throttle.release(attempt);
      throw error;
    }
    const actor: AuditActor = user ? { type: 'user', id: user.id } : { type: 'anonymous' };
    if (!user || !matches) {
      const engaged = await this.throttle.recordFailure(attempt);
      await this.audit.record({ event: 'login_failed', orgId: user?.orgId, actor, ip, details: { email } });
      for (const scope of engaged) await this.auditThrottle(scope, email, ip, user?.orgId, actor);
      throw new AppError('invalid_credentials');
    }
    await this.throttle.recordSuccess(attempt);
    const session = await this.sessions.issue(user.id, ip);
    await this.audit.record({
      event: 'login_succeeded',
      orgId: user.orgId,
      actor,
      ip,
      ...(delayMs > 0 ? { details: { delayed_s: delayMs / 1000 } } : {}),
    });
    return session;
  }

  async verifyEmail(token: string, ip: string): Promise<void> {
    await this.consume(token, 'verify_email', async (userId, orgId, tx, now) => {
      await this.repository.markEmailVerified(userId, now, tx);
      await this.audit.record(
        { event: 'email_verified', orgId, actor: { type: 'user', id: userId }, ip },
        transactionOf(tx),
      );
    });
  }

  /** Answers identically whether or not the address exists; the lookup and the mail happen afterwards. */
  requestPasswordReset(rawEmail: string, ip: string): void {
    const email = normalizeEmail(rawEmail);
    const work = this.sendReset(email, ip).catch((error: unknown) => {
      this.logger.error({ event: 'password_reset_mail_failed', err: error }, 'could not send a reset mail');
    });
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  async resetPassword(token: string, newPassword: string, ip: string): Promise<void> {
    const usable = await this.repository.findUsableAuthToken(
      sha256Hex(token),
      'reset_password',
      new Date().toISOString(),
    );
    if (!usable) throw new AppError('invalid_token');
    const passwordHash = await this.passwords.hash(newPassword);
    let userId = '';
    await this.consume(token, 'reset_password', async (id, orgId, tx, now) => {
      userId = id;
      await this.repository.setPassword(id, passwordHash, tx);
      const ended = await this.sessions.revokeAll(id, tx);
      await this.repository.retireAuthTokens(id, 'reset_password', now, tx);
      await this.audit.record(
        {
          event: 'password_reset',
          orgId,
          actor: { type: 'user', id },
          ip,
          details: { sessions_revoked: ended },
        },
        transactionOf(tx),
      );
    });
    this.sessions.forgetUser(userId);
    await this.throttle.clearAccount((await this.repository.findUser(userId))?.email ?? '');
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Written once when a throttle engages, not per refused attempt, so a flood of 429s cannot flood the log. */
  private async auditThrottle(
    scope: ThrottleEngagement,
    email: string,
    ip: string,
    orgId: string | undefined,
    actor: AuditActor,
  ): Promise<void> {
    const windowS = this.config.loginFailureWindowS;
    if (scope === 'account_backstop') {
      await this.audit.record({
        event: 'login_backstop_engaged',
        orgId,
        actor,
        ip,
        details: {
          email,
          failures: this.config.loginAccountBackstop + 1,
          window_s: windowS,
          delay_s: this.config.loginBackstopDelayS,
        },
      });
      return;
    }
    const failures = scope === 'source' ? this.config.loginFailuresPerIp : this.config.loginFailuresPerSource;
    await this.audit.record({
      event: 'login_throttled',
      orgId: scope === 'source' ? undefined : orgId,
      actor: scope === 'source' ? { type: 'anonymous' } : actor,
      ip,
      details: { scope, ...(scope === 'source' ? {} : { email }), failures, window_s: windowS },
    });
  }

  private async sendReset(email: string, ip: string): Promise<void> {
    const user = await this.repository.findUserByEmail(email);
    if (!user) return;
    if (!(await this.resetMails.take([user.id])).counted) {
      this.logger.warn(
        { event: 'password_reset_mail_throttled', user_id: user.id },
        'reset mail not sent: too many',
      );
      return;
    }
    await this.mailer.sendPasswordReset(user);
    await this.audit.record({
      event: 'password_reset_requested',
      orgId: user.orgId,
      actor: { type: 'anonymous' },
      ip,
      target: { type: 'user', id: user.id },
    });
  }

  /** Single use: the token is marked used in the same transaction as the change it authorizes. */
  private async consume(
    token: string,
    purpose: AuthTokenPurpose,
    apply: (userId: string, orgId: string, tx: EntityManager, now: string) => Promise<void>,
  ): Promise<void> {
    const now = new Date().toISOString();
    const found = await this.repository.findUsableAuthToken(sha256Hex(token), purpose, now);
    if (!found) throw new AppError('invalid_token');
    const user = await this.repository.findUser(found.userId);
    if (!user) throw new AppError('invalid_token');
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.consumeAuthToken(found.id, now, tx))) throw new AppError('invalid_token');
      await apply(user.id, user.orgId, tx, now);
    });
  }
}
