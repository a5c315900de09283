import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { burnPasswordCheck, hashPassword, sha256Hex, verifyPassword } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { AuditService } from '../audit/audit.service';
import { AuthTokenPurpose } from './account.entities';
import { AccountMailer } from './account-mailer';
import { AccountsRepository } from './accounts.repository';
import { normalizeEmail } from './accounts.types';
import { LoginThrottle } from './login-throttle';
import { SessionsService } from './sessions.service';
import { SlidingWindowLimiter } from './sliding-window-limiter';

/** Reset mails per address per hour; beyond it requests are answered the same but send nothing (no mail bombing). */
const RESET_MAILS_PER_HOUR = 3;

@Injectable()
export class AuthService implements OnApplicationShutdown {
  /** forgot-password work runs after the answer is sent; shutdown waits for it. */
  private readonly pending = new Set<Promise<void>>();
  private readonly resetMails = new SlidingWindowLimiter(RESET_MAILS_PER_HOUR, 3600_000);

  constructor(
    private readonly repository: AccountsRepository,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
    private readonly mailer: AccountMailer,
    private readonly audit: AuditService,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Unknown address, missing password and wrong password all answer the same 401, after the same work. */
  async login(rawEmail: string, password: string, ip: string): Promise<{ token: string; expiresIn: number }> {
    const email = normalizeEmail(rawEmail);
    this.throttle.assertAllowed(email, ip);
    const user = await this.repository.findUserByEmail(email);
    const matches = user?.passwordHash
      ? await verifyPassword(password, user.passwordHash)
      : await burnPasswordCheck(password).then(() => false);
    if (!user || !matches) {
      this.throttle.recordFailure(email, ip);
      await this.audit.record({
        event: 'login_failed',
        orgId: user?.orgId,
        actor: user ? { type: 'user', id: user.id } : { type: 'anonymous' },
        ip,
        details: { email },
      });
      throw new AppError('invalid_credentials');
    }
    this.throttle.recordSuccess(email);
    const session = await this.sessions.issue(user.id, ip);
    await this.audit.record({ event: 'login_succeeded', orgId: user.orgId, actor: { type: 'user', id: user.id }, ip });
    return session;
  }

  async verifyEmail(token: string, ip: string): Promise<void> {
    await this.consume(token, 'verify_email', async (userId, orgId, tx, now) => {
      await this.repository.markEmailVerified(userId, now, tx);
      await this.audit.record({ event: 'email_verified', orgId, actor: { type: 'user', id: userId }, ip }, tx);
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

  /** Sets the new password and ends every session of the user. */
  async resetPassword(token: string, newPassword: string, ip: string): Promise<void> {
    const usable = await this.repository.findUsableAuthToken(sha256Hex(token), 'reset_password', new Date().toISOString());
    if (!usable) throw new AppError('invalid_token');
    const passwordHash = await hashPassword(newPassword);
    let userId = '';
    await this.consume(token, 'reset_password', async (id, orgId, tx, now) => {
      userId = id;
      await this.repository.setPassword(id, passwordHash, tx);
      const ended = await this.sessions.revokeAll(id, tx);
      await this.repository.retireAuthTokens(id, 'reset_password', now, tx);
      await this.audit.record(
        { event: 'password_reset', orgId, actor: { type: 'user', id }, ip, details: { sessions_revoked: ended } },
        tx,
      );
    });
    this.sessions.forgetUser(userId);
    this.throttle.recordSuccess((await this.repository.findUser(userId))?.email ?? '');
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private async sendReset(email: string, ip: string): Promise<void> {
    const user = await this.repository.findUserByEmail(email);
    if (!user) return;
    if (this.resetMails.retryAfterMs(user.id) > 0) {
      this.logger.warn({ event: 'password_reset_mail_throttled', user_id: user.id }, 'reset mail not sent: too many');
      return;
    }
    this.resetMails.hit(user.id);
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
