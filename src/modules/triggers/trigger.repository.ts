import { Injectable } from '@nestjs/common';
import { FilterQuery } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import {
  Lease,
  serializeTransactionsOn,
  sharedWrite,
  skippingLockedRows,
  Transaction,
  transactionOf,
} from '../../common/database';
import { pageOf, rowsToFetch, timeOrderedCursor } from '../../common/http/cursor-page';
import { timeOrderedId } from '../../common/time-ordered-id';
import { Trigger, TriggerFire, TriggerFireSchema, TriggerSchema } from './trigger.entity';
import { isAheadOfClockStep } from './trigger-evaluation';

/** Enabled triggers whose evaluation is due and whose lease is free or has run out. */
function claimable(now: Date): FilterQuery<Trigger> {
  return {
    enabled: true,
    nextEvaluationAt: { $lte: now },
    $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }],
  };
}

export type NewTrigger = Omit<Trigger, 'id' | 'createdAt' | 'updatedAt'>;
export type TriggerChanges = Partial<Omit<Trigger, 'id' | 'orgId' | 'createdAt'>>;

export type NewFire = Omit<TriggerFire, 'id'>;

export interface FirePage {
  readonly fires: TriggerFire[];
  readonly nextCursor: string | null;
}

export type FireRows = (tx: Transaction, fire: TriggerFire) => Promise<void>;

/** What a create or update answers when it would schedule one trigger past the organization's cap. */
export const NO_SCHEDULED_ROOM = 'no_scheduled_room';
type NoScheduledRoom = typeof NO_SCHEDULED_ROOM;

export interface EvaluationRecord {
  readonly changes: TriggerChanges;
  readonly fire?: NewFire;
  readonly alsoWrite?: FireRows;
}

export type RecordOutcome = 'recorded' | 'stale' | 'slot_already_fired';

export type OutcomeFields = Required<
  Pick<
    TriggerFire,
    | 'realizedValue'
    | 'realizedVariables'
    | 'realizedActionValues'
    | 'outcomeAt'
    | 'reportedBy'
    | 'reportedByRole'
  >
>;

export interface TriggerPage {
  readonly triggers: Trigger[];
  readonly nextCursor: string | null;
}

@Injectable()
export class TriggerRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * `scheduledCap`, when given, is checked in the same transaction as the write, serialised per organization, so
   * concurrent requests (or replicas) cannot both take the last slot.
   */
  async create(fields: NewTrigger, now: Date): Promise<Trigger>;
  async create(fields: NewTrigger, now: Date, scheduledCap?: number): Promise<Trigger | NoScheduledRoom>;
  async create(fields: NewTrigger, now: Date, scheduledCap?: number): Promise<Trigger | NoScheduledRoom> {
    return this.em.fork().transactional(async (em) => {
      if (scheduledCap !== undefined && !(await this.hasScheduledRoom(em, fields.orgId, scheduledCap)))
        return NO_SCHEDULED_ROOM;
      const trigger = em.create(TriggerSchema, {
        ...fields,
        id: timeOrderedId('trg', now.getTime()),
        createdAt: now,
        updatedAt: now,
      });
      await em.persistAndFlush(trigger);
      return trigger;
    });
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<Trigger | null> {
    return this.em.fork().findOne(TriggerSchema, { orgId, idempotencyId });
  }

  private async hasScheduledRoom(em: EntityManager, orgId: string, cap: number): Promise<boolean> {
    await serializeTransactionsOn(em, `triggers.scheduled:${orgId}`);
    return (await em.count(TriggerSchema, { orgId, nextEvaluationAt: { $ne: null } })) < cap;
  }

  findForOrg(orgId: string, id: string): Promise<Trigger | null> {
    return this.em.fork().findOne(TriggerSchema, { id, orgId });
  }

  async listForOrg(orgId: string, limit: number, cursor?: string): Promise<TriggerPage> {
    const rows = await this.em
      .fork()
      .find(TriggerSchema, cursor ? { orgId, id: { $gt: timeOrderedCursor(cursor, 'trg') } } : { orgId }, {
        orderBy: { id: 'asc' },
        limit: rowsToFetch(limit),
      });
    const page = pageOf(rows, limit, (last) => last.id);
    return { triggers: page.items, nextCursor: page.nextCursor };
  }

  async update(
    orgId: string,
    id: string,
    changes: TriggerChanges,
    scheduledCap?: number,
  ): Promise<Trigger | NoScheduledRoom | null> {
    return this.em.fork().transactional(async (em) => {
      if (scheduledCap !== undefined && !(await this.hasScheduledRoom(em, orgId, scheduledCap)))
        return NO_SCHEDULED_ROOM;
      const updated = await em.nativeUpdate(TriggerSchema, { id, orgId }, changes);
      return updated === 1 ? em.findOne(TriggerSchema, { id }, { refresh: true }) : null;
    });
  }

  /** Deletes the trigger and its fire history; queued webhooks stay in the outbox and are still delivered. */
  async delete(orgId: string, id: string): Promise<boolean> {
    return (await this.em.fork().nativeDelete(TriggerSchema, { id, orgId })) === 1;
  }

  // The select skips rows another replica is claiming and the update takes only free leases, so a trigger is never
  // evaluated by two replicas at once.
  async claimDue(now: Date, limit: number, lease: Lease): Promise<Trigger[]> {
    return this.em.fork().transactional(async (em) => {
      const due = await em.find(TriggerSchema, claimable(now), {
        orderBy: { nextEvaluationAt: 'asc', id: 'asc' },
        limit,
        fields: ['id'],
        ...skippingLockedRows(em),
      });
      if (due.length === 0) return [];
      const ids = due.map((trigger) => trigger.id);
      await em.nativeUpdate(
        TriggerSchema,
        { $and: [{ id: { $in: ids } }, claimable(now)] },
        { leaseOwner: lease.owner, leaseUntil: lease.until },
      );
      return em.find(
        TriggerSchema,
        { id: { $in: ids }, leaseOwner: lease.owner, leaseUntil: lease.until },
        { orderBy: { nextEvaluationAt: 'asc', id: 'asc' }, refresh: true },
      );
    });
  }

  /**
   * After the wall clock stepped back: a slot further ahead than its trigger's interval, or a lease ending later
   * than a lease can last, exists only because of the step. Slots are brought back to `now` (evaluated at once,
   * instead of after the step) and leases to their longest, keeping their holders; returns the slots moved.
   */
  async pullBackFromClockStep(now: Date, longestLeaseMs: number): Promise<number> {
    const em = this.em.fork();
    const latestLeaseEnd = new Date(now.getTime() + longestLeaseMs);
    await em.nativeUpdate(
      TriggerSchema,
      { leaseUntil: { $gt: latestLeaseEnd } },
      { leaseUntil: latestLeaseEnd },
    );
    const ahead = await em.find(
      TriggerSchema,
      { enabled: true, nextEvaluationAt: { $gt: now } },
      { fields: ['id', 'intervalS', 'nextEvaluationAt'] },
    );
    let moved = 0;
    for (const trigger of ahead) {
      const next = trigger.nextEvaluationAt!;
      if (!isAheadOfClockStep(next, trigger.intervalS ?? 0, now)) continue;
      moved += await em.nativeUpdate(
        TriggerSchema,
        { id: trigger.id, nextEvaluationAt: next },
        { nextEvaluationAt: now },
      );
    }
    return moved;
  }

  /** Extends the leases `lease.owner` still holds (evaluations running); one taken over meanwhile is not touched. */
  async renewLeases(lease: Lease, ids?: readonly string[]): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(
        TriggerSchema,
        { leaseOwner: lease.owner, leaseUntil: { $ne: null }, ...(ids ? { id: { $in: [...ids] } } : {}) },
        { leaseUntil: lease.until },
      );
  }

  // All or nothing. Nothing is written when the trigger was deleted, redefined or its lease taken over (`stale`), or
  // when its slot already fired (`slot_already_fired`).
  recordEvaluation(
    id: string,
    owner: string,
    generation: number,
    record: EvaluationRecord,
  ): Promise<RecordOutcome> {
    return sharedWrite(this.em, async (em): Promise<RecordOutcome> => {
      const isSlotFired =
        record.fire !== undefined &&
        (await em.count(TriggerFireSchema, { triggerId: id, slot: record.fire.slot })) > 0;
      const fire = isSlotFired ? undefined : record.fire;
      const fireId = fire ? timeOrderedId('fire', fire.firedAt.getTime()) : undefined;
      const updated = await em.nativeUpdate(
        TriggerSchema,
        { id, leaseOwner: owner, generation },
        {
          ...record.changes,
          ...(fire ? { lastFireId: fireId, lastFiredAt: fire.firedAt } : {}),
          leaseOwner: null,
          leaseUntil: null,
        },
      );
      if (updated !== 1) {
        await em.nativeUpdate(
          TriggerSchema,
          { id, leaseOwner: owner },
          { leaseOwner: null, leaseUntil: null },
        );
        return 'stale';
      }
      if (fire && fireId) {
        const row = em.create(TriggerFireSchema, { ...fire, id: fireId });
        em.persist(row);
        await em.flush();
        if (record.alsoWrite) await record.alsoWrite(transactionOf(em), row);
      }
      return isSlotFired ? 'slot_already_fired' : 'recorded';
    });
  }

  async recordManualFire(
    orgId: string,
    triggerId: string,
    fire: Omit<NewFire, 'slot'>,
    alsoWrite: FireRows,
  ): Promise<TriggerFire | null> {
    return this.em.fork().transactional(async (em) => {
      const id = timeOrderedId('fire', fire.firedAt.getTime());
      const exists = fire.conditionMet
        ? (await em.nativeUpdate(
            TriggerSchema,
            { id: triggerId, orgId },
            { lastFireId: id, lastFiredAt: fire.firedAt },
          )) === 1
        : (await em.count(TriggerSchema, { id: triggerId, orgId })) === 1;
      if (!exists) return null;
      const row = em.create(TriggerFireSchema, { ...fire, id, slot: `manual:${id}` });
      em.persist(row);
      await em.flush();
      await alsoWrite(transactionOf(em), row);
      return row;
    });
  }

  findFireByIdempotency(
    orgId: string,
    triggerId: string,
    idempotencyId: string,
  ): Promise<TriggerFire | null> {
    return this.em.fork().findOne(TriggerFireSchema, { orgId, triggerId, idempotencyId });
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(TriggerSchema, { id, leaseOwner: owner }, { leaseOwner: null, leaseUntil: null });
  }

  findFire(orgId: string, triggerId: string, fireId: string): Promise<TriggerFire | null> {
    return this.em.fork().findOne(TriggerFireSchema, { id: fireId, triggerId, orgId });
  }

  /** False when an outcome was already reported (or the fire is gone). */
  async recordOutcome(
    orgId: string,
    fireId: string,
    outcome: OutcomeFields,
    alsoWrite: (tx: Transaction) => Promise<void>,
  ): Promise<boolean> {
    return this.em.fork().transactional(async (tx) => {
      const updated = await tx.nativeUpdate(
        TriggerFireSchema,
        { id: fireId, orgId, realizedValue: null },
        outcome,
      );
      if (updated !== 1) return false;
      await alsoWrite(transactionOf(tx));
      return true;
    });
  }

  async recentOutcomes(
    triggerId: string,
    limit: number,
    reporterRoles: readonly string[],
  ): Promise<{ fires: TriggerFire[]; total: number; uncounted: number }> {
    const em = this.em.fork();
    const withOutcome = { triggerId, realizedValue: { $ne: null } };
    const counted = { ...withOutcome, reportedByRole: { $in: [...reporterRoles] } };
    const [fires, total, all] = await Promise.all([
      em.find(TriggerFireSchema, counted, { orderBy: { outcomeAt: 'desc', id: 'desc' }, limit }),
      em.count(TriggerFireSchema, counted),
      em.count(TriggerFireSchema, withOutcome),
    ]);
    return { fires, total, uncounted: all - total };
  }

  async listFires(orgId: string, triggerId: string, limit: number, cursor?: string): Promise<FirePage> {
    const rows = await this.em
      .fork()
      .find(
        TriggerFireSchema,
        cursor ? { orgId, triggerId, id: { $lt: timeOrderedCursor(cursor, 'fire') } } : { orgId, triggerId },
        { orderBy: { id: 'desc' }, limit: rowsToFetch(limit) },
      );
    const page = pageOf(rows, limit, (last) => last.id);
    return { fires: page.items, nextCursor: page.nextCursor };
  }
}
