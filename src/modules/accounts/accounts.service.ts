import { Inject, Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { PasswordHasher } from '../../common/crypto';
import { transactionOf } from '../../common/database';
import { AppError } from '../../common/errors';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AuditService } from '../audit/audit.service';
import { UserEntity } from './account.entities';
import { AccountMailer } from './account-mailer';
import { AccountsRepository } from './accounts.repository';
import { CreatedAccount, NewAccount, normalizeEmail, UserView } from './accounts.types';
import { toOrganization } from './organizations.service';

const HOUR_S = 3600;

@Injectable()
export class AccountsService {
  /** Sign-ups per client address per hour; undefined when SERVICE_SIGNUP_RATE_LIMIT is 0 (off). */
  private readonly signupsBySource: WindowCounter | undefined;

  constructor(
    private readonly repository: AccountsRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly audit: AuditService,
    private readonly mailer: AccountMailer,
    private readonly passwords: PasswordHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    counters: WindowCounters,
  ) {
    this.signupsBySource =
      config.signupRateLimit === 0
        ? undefined
        : counters.create('signup_source', config.signupRateLimit, HOUR_S);
  }

  /** Hosted sign-up: organization, owner and bootstrap key in one transaction, then a verification mail. */
  async signup(input: NewAccount, ip: string): Promise<CreatedAccount> {
    if (!this.config.signupEnabled) throw new AppError('signup_disabled');
    await this.admitSignup(ip);
    const account = await this.createAccount(input, { event: 'signup', ip });
    try {
      await this.mailer.sendVerification(account.user);
    } catch (error) {
      this.logger.error(
        { event: 'verification_mail_failed', user_id: account.user.id, err: error },
        'mail failed',
      );
    }
    return account;
  }

  /** Operator provisioning (offline CLI): only while the appliance has no operator organization. */
  async provision(input: NewAccount): Promise<CreatedAccount> {
    return this.createAccount(input, { event: 'provisioned', requireFirst: true });
  }

  async getUser(userId: string): Promise<UserView | undefined> {
    const user = await this.repository.findUser(userId);
    return user ? toUserView(user) : undefined;
  }

  /** Counted before any work, so a burst from one address cannot pass the limit; a failed sign-up still counts. */
  private async admitSignup(ip: string): Promise<void> {
    const signup = await this.signupsBySource?.take([ip]);
    if (!signup || signup.counted) return;
    throw AppError.retryLater(
      'rate_limited',
      signup.retryAfterMs,
      'Too many sign-ups from this address: retry later.',
    );
  }

  private async createAccount(
    input: NewAccount,
    how: { event: 'signup' | 'provisioned'; ip?: string; requireFirst?: boolean },
  ): Promise<CreatedAccount> {
    const email = normalizeEmail(input.email);
    // scrypt runs before the transaction so the write lock is never held across it
    const passwordHash = input.password === undefined ? null : await this.passwords.hash(input.password);
    try {
      return await this.repository.transaction(async (tx) => {
        if (how.requireFirst && (await this.repository.findOperatorOrganization(tx))) {
          throw new AppError('conflict', 'An operator organization already exists on this appliance.');
        }
        if (await this.repository.findUserByEmail(email, tx)) throw new AppError('email_taken');
        const org = await this.repository.insertOrganization(input.organizationName ?? input.name, tx);
        if (how.requireFirst && !org.isOperator) {
          throw new AppError('conflict', 'An operator organization already exists on this appliance.');
        }
        const user = await this.repository.insertUser(
          { orgId: org.id, email, name: input.name, role: 'owner', passwordHash, emailVerifiedAt: null },
          tx,
        );
        const actor =
          how.event === 'provisioned' ? { type: 'cli' as const } : { type: 'user' as const, id: user.id };
        const apiKey = await this.apiKeys.issue(
          { orgId: org.id, role: 'owner', actor, ip: how.ip },
          { label: 'bootstrap', role: 'owner', deviceLimit: 0 },
          transactionOf(tx),
        );
        await this.audit.record(
          {
            event: how.event,
            orgId: org.id,
            actor,
            ip: how.ip,
            target: { type: 'user', id: user.id },
            details: { organization: org.name, is_operator: org.isOperator },
          },
          transactionOf(tx),
        );
        return { organization: toOrganization(org), user: toUserView(user), apiKey };
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException && USERS_EMAIL_INDEX.test(error.message)) {
        throw new AppError('email_taken');
      }
      throw error;
    }
  }
}

/** The unique index on users' e-mail, as SQLite (`users.email`) and PostgreSQL (`"users_email"`) name it. */
const USERS_EMAIL_INDEX = /users[._]email/;

export function toUserView(user: UserEntity): UserView {
  return {
    id: user.id,
    orgId: user.orgId,
    email: user.email,
    name: user.name,
    role: user.role,
    emailVerified: user.emailVerifiedAt !== null,
  };
}
