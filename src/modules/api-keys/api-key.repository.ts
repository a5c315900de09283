import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { serializeTransactionsOn, Transaction, transactionOf } from '../../common/database';
import { ApiKeyEntity, ApiKeySchema } from './api-key.entity';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly em: EntityManager) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.em.fork().transactional(work);
  }

  /** A transaction that only adds rows (this module's and other modules'), committed when `work` resolves. */
  writeTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.em.fork().transactional((em) => work(transactionOf(em)));
  }

  async insert(row: Omit<ApiKeyEntity, 'id'>, tx: Transaction): Promise<ApiKeyEntity> {
    const entity: ApiKeyEntity = { ...row, id: `key_${randomUUID().replace(/-/g, '')}` };
    await tx.insertAll(ApiKeySchema, [entity]);
    return entity;
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<ApiKeyEntity | null> {
    return this.em.fork().findOne(ApiKeySchema, { orgId, idempotencyId });
  }

  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.em.fork().findOne(ApiKeySchema, { keyHash, revokedAt: null });
  }

  findUnrevokedInOrg(orgId: string, keyId: string, tx: EntityManager): Promise<ApiKeyEntity | null> {
    return tx.findOne(ApiKeySchema, { id: keyId, orgId, revokedAt: null });
  }

  listActive(orgId: string, now: string): Promise<ApiKeyEntity[]> {
    return this.em
      .fork()
      .find(
        ApiKeySchema,
        { orgId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
  }

  /**
   * Revokes the key only if another active key of the org remains, in one statement so of two concurrent revocations
   * of the last two keys exactly one succeeds (PostgreSQL needs the rows locked first: `select ... for update`).
   */
  async revokeUnlessLast(orgId: string, keyId: string, now: string, tx: EntityManager): Promise<boolean> {
    await serializeTransactionsOn(tx, `api_keys:${orgId}`);
    const result = await tx.execute<{ affectedRows: number }>(
      `update api_keys set revoked_at = ?
        where id = ? and org_id = ? and revoked_at is null
          and (select count(*) from api_keys other
                where other.org_id = ? and other.id <> ? and other.revoked_at is null
                  and (other.expires_at is null or other.expires_at > ?)) >= 1`,
      [now, keyId, orgId, orgId, keyId, now],
      'run',
    );
    return result.affectedRows === 1;
  }

  async touchLastUsed(keyId: string, at: string): Promise<void> {
    await this.em.fork().nativeUpdate(ApiKeySchema, { id: keyId }, { lastUsedAt: at });
  }
}
