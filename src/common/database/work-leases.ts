import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { EntityData, EntitySchema, FilterQuery, LockMode, QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../config';
import { dialectOf } from './dialect';

/** Who holds a claim, and until when it holds unless renewed. */
export interface Lease {
  readonly owner: string;
  readonly until: Date;
}

/**
 * Background work (jobs, outbox deliveries) is claimed under a lease that names this process and runs out unless it
 * is renewed. A replica never frees work by assumption — at start or otherwise — so work another live replica holds
 * stays its own, and a dead replica's work is claimed again once its leases have run out.
 */
@Injectable()
export class WorkLeases {
  /** Unique per process and start, so a restarted daemon does not mistake its predecessor's leases for its own. */
  readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  readonly durationMs: number;
  /** A third of the lease: a renewal can fail twice before the work is taken over. */
  readonly renewEveryMs: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.durationMs = config.workLeaseS * 1000;
    this.renewEveryMs = Math.floor(this.durationMs / 3);
  }

  /** This replica's lease taken or renewed at `now`. */
  leaseFrom(now: Date): Lease {
    return { owner: this.owner, until: new Date(now.getTime() + this.durationMs) };
  }
}

/**
 * Find options that make a claiming select skip rows another transaction has locked (`for update skip locked`), so
 * replicas claiming at once take different rows instead of queueing on the same ones. SQLite has one writer at a
 * time and no row locks; the conditional update that follows the select is what keeps a claim single there.
 */
export function skippingLockedRows(em: EntityManager): { lockMode?: LockMode.PESSIMISTIC_PARTIAL_WRITE } {
  return dialectOf(em.getPlatform()) === 'postgresql' ? { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE } : {};
}

/** What `claimRows` takes: which rows are due, in which order, and what claiming writes on them. */
export interface Claim<T extends object> {
  readonly due: FilterQuery<T>;
  readonly orderBy: QueryOrderMap<T>;
  readonly limit: number;
  readonly set: EntityData<T>;
  /** `orderBy` for the claimed rows: `returning` gives them in no particular order. */
  readonly compare: (a: T, b: T) => number;
}

/**
 * Claims up to `limit` due rows in one statement, `update … where id in (select … limit n) and <due> returning *`,
 * outside any transaction: one trip to the database instead of a transaction of select, update and select. The
 * update takes only rows still due, so a row is never claimed twice; on PostgreSQL the inner select skips rows
 * another replica is claiming (`for update skip locked`). Returns the claimed rows sorted by `compare`.
 */
export async function claimRows<T extends { id: string }>(
  em: EntityManager,
  schema: EntitySchema<T>,
  claim: Claim<T>,
): Promise<T[]> {
  const pick = em
    .createQueryBuilder(schema, 'due')
    .select('id')
    .where(claim.due)
    .orderBy(claim.orderBy)
    .limit(claim.limit);
  const update = em
    .createQueryBuilder(schema)
    .update(claim.set)
    .where(claim.due)
    .returning('*' as never)
    .getKnexQuery();
  if (dialectOf(em.getPlatform()) === 'postgresql') {
    // `id = any(array(…))` makes PostgreSQL run the locking select once: as `id in (…)` the planner may rescan it
    // and claim more than `limit` rows. Knex's own lock clause: the ORM's insists on an explicit transaction.
    update.whereRaw('?? = any(array(?))', ['id', pick.getKnexQuery().forUpdate().skipLocked()]);
  } else {
    update.whereIn('id', pick.getKnexQuery());
  }
  const rows = await em.getConnection().execute<EntityData<T>[]>(update, [], 'all');
  return rows.map((row) => em.map(schema, row)).sort(claim.compare);
}
