import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { serializeTransactionsOn } from '../../common/database';
import {
  AuthTokenEntity,
  AuthTokenPurpose,
  AuthTokenSchema,
  newId,
  OrganizationEntity,
  OrganizationSchema,
  SessionEntity,
  SessionSchema,
  UserEntity,
  UserSchema,
} from './account.entities';

@Injectable()
export class AccountsRepository {
  constructor(private readonly em: EntityManager) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.em.fork().transactional(work);
  }

  findOrganization(id: string): Promise<OrganizationEntity | null> {
    return this.em.fork().findOne(OrganizationSchema, { id });
  }

  findOperatorOrganization(tx?: EntityManager): Promise<OrganizationEntity | null> {
    return (tx ?? this.em.fork()).findOne(OrganizationSchema, { isOperator: true });
  }

  /** The first organization is the operator's; on PostgreSQL a count of none takes the lock and counts again. */
  async insertOrganization(name: string, tx: EntityManager): Promise<OrganizationEntity> {
    let isFirst = (await tx.count(OrganizationSchema, {})) === 0;
    if (isFirst) {
      await serializeTransactionsOn(tx, 'organizations:operator');
      isFirst = (await tx.count(OrganizationSchema, {})) === 0;
    }
    const now = new Date().toISOString();
    const org = tx.create(OrganizationSchema, {
      id: newId('org'),
      name,
      isOperator: isFirst,
      createdAt: now,
      updatedAt: now,
    });
    tx.persist(org);
    await tx.flush();
    return org;
  }

  findUserByEmail(email: string, tx?: EntityManager): Promise<UserEntity | null> {
    return (tx ?? this.em.fork()).findOne(UserSchema, { email });
  }

  findUser(id: string): Promise<UserEntity | null> {
    return this.em.fork().findOne(UserSchema, { id });
  }

  async insertUser(
    row: Omit<UserEntity, 'id' | 'createdAt' | 'updatedAt'>,
    tx: EntityManager,
  ): Promise<UserEntity> {
    const now = new Date().toISOString();
    const user = tx.create(UserSchema, { ...row, id: newId('usr'), createdAt: now, updatedAt: now });
    tx.persist(user);
    await tx.flush();
    return user;
  }

  async setPassword(userId: string, passwordHash: string, tx: EntityManager): Promise<void> {
    await tx.nativeUpdate(UserSchema, { id: userId }, { passwordHash, updatedAt: new Date().toISOString() });
  }

  async markEmailVerified(userId: string, at: string, tx: EntityManager): Promise<void> {
    await tx.nativeUpdate(
      UserSchema,
      { id: userId, emailVerifiedAt: null },
      { emailVerifiedAt: at, updatedAt: at },
    );
  }

  async insertSession(row: Omit<SessionEntity, 'id' | 'revokedAt'>): Promise<SessionEntity> {
    const em = this.em.fork();
    const session = em.create(SessionSchema, { ...row, id: newId('ses'), revokedAt: null });
    await em.persistAndFlush(session);
    return session;
  }

  async findLiveSession(
    sessionId: string,
    userId: string,
    now: string,
  ): Promise<{ session: SessionEntity; user: UserEntity } | null> {
    const em = this.em.fork();
    const session = await em.findOne(SessionSchema, {
      id: sessionId,
      userId,
      revokedAt: null,
      expiresAt: { $gt: now },
    });
    if (!session) return null;
    const user = await em.findOne(UserSchema, { id: userId });
    return user ? { session, user } : null;
  }

  async revokeSessionsOf(userId: string, at: string, tx: EntityManager): Promise<number> {
    return tx.nativeUpdate(SessionSchema, { userId, revokedAt: null }, { revokedAt: at });
  }

  async insertAuthToken(row: Omit<AuthTokenEntity, 'id' | 'usedAt' | 'createdAt'>): Promise<void> {
    const em = this.em.fork();
    await em.persistAndFlush(
      em.create(AuthTokenSchema, {
        ...row,
        id: newId('tok'),
        createdAt: new Date().toISOString(),
        usedAt: null,
      }),
    );
  }

  findUsableAuthToken(
    tokenHash: string,
    purpose: AuthTokenPurpose,
    now: string,
  ): Promise<AuthTokenEntity | null> {
    return this.em
      .fork()
      .findOne(AuthTokenSchema, { tokenHash, purpose, usedAt: null, expiresAt: { $gt: now } });
  }

  async consumeAuthToken(tokenId: string, now: string, tx: EntityManager): Promise<boolean> {
    const changed = await tx.nativeUpdate(
      AuthTokenSchema,
      { id: tokenId, usedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    return changed === 1;
  }

  /** Outstanding tokens of that purpose stop working (a newer reset link or a completed reset supersedes them). */
  async retireAuthTokens(
    userId: string,
    purpose: AuthTokenPurpose,
    now: string,
    tx?: EntityManager,
  ): Promise<void> {
    await (tx ?? this.em.fork()).nativeUpdate(
      AuthTokenSchema,
      { userId, purpose, usedAt: null },
      { usedAt: now },
    );
  }
}
