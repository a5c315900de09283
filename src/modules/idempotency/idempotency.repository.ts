import { Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import { IdempotencyRecord, IdempotencyRecordSchema } from './idempotency-record.entity';

export interface NewClaim {
  readonly id: string;
  readonly orgId: string;
  readonly fingerprint: string;
  readonly leaseToken: string;
  readonly leaseUntil: Date;
  readonly operationId: string;
  readonly now: Date;
  readonly expiresAt: Date;
}

// Every write is one conditional statement, so two requests (or daemons) racing for a key cannot both win.
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly em: EntityManager) {}

  find(id: string): Promise<IdempotencyRecord | null> {
    return this.em.fork().findOne(IdempotencyRecordSchema, { id });
  }

  async insertClaim(claim: NewClaim): Promise<boolean> {
    const em = this.em.fork();
    try {
      await em.insert(IdempotencyRecordSchema, {
        ...this.claimFields(claim),
        id: claim.id,
        orgId: claim.orgId,
      });
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  /** Replaces `seen` (expired, or its lease lapsed) with a new claim, provided nobody changed it since it was read. */
  async takeOver(seen: IdempotencyRecord, claim: NewClaim): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(
        IdempotencyRecordSchema,
        { id: seen.id, leaseToken: seen.leaseToken, state: seen.state },
        this.claimFields(claim),
      );
    return updated === 1;
  }

  async renew(id: string, leaseToken: string, leaseUntil: Date): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(IdempotencyRecordSchema, { id, leaseToken, state: 'in_flight' }, { leaseUntil });
    return updated === 1;
  }

  async complete(
    id: string,
    leaseToken: string,
    statusCode: number,
    responseSealed: string,
  ): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(
        IdempotencyRecordSchema,
        { id, leaseToken, state: 'in_flight' },
        { state: 'completed', statusCode, responseSealed },
      );
    return updated === 1;
  }

  async release(id: string, leaseToken: string): Promise<void> {
    await this.em.fork().nativeDelete(IdempotencyRecordSchema, { id, leaseToken, state: 'in_flight' });
  }

  /** Records past their retention; an in-flight one has the same retention, counted from its claim. */
  deleteExpired(now: Date): Promise<number> {
    return this.em.fork().nativeDelete(IdempotencyRecordSchema, { expiresAt: { $lte: now } });
  }

  private claimFields(claim: NewClaim) {
    return {
      fingerprint: claim.fingerprint,
      state: 'in_flight' as const,
      leaseToken: claim.leaseToken,
      leaseUntil: claim.leaseUntil,
      operationId: claim.operationId,
      statusCode: null,
      responseSealed: null,
      createdAt: claim.now,
      expiresAt: claim.expiresAt,
    };
  }
}
