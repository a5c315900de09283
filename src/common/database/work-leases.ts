import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { EntitySchema, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../config';
import { dialectOf } from './dialect';
import { EntityRows } from './entity-rows';
import { PreparedWrite } from './prepared-write';

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

/** What a `PreparedClaim` writes out: which rows are due, in which order, and what claiming sets on them. */
export interface ClaimSql<T extends object> {
  readonly schema: EntitySchema<T>;
  readonly table: string;
  /** SQL over the table's columns, `?` for the values of `dueParams`: the rows claimable at `now`. */
  readonly due: string;
  readonly dueParams: (now: Date) => readonly unknown[];
  readonly orderBy: string;
  /** The assignments claiming makes, `?` for the values of `setParams`. */
  readonly set: string;
  readonly setParams: (now: Date, lease: Lease) => readonly unknown[];
  /** `orderBy` for the claimed rows: `returning` gives them in no particular order. */
  readonly compare: (a: T, b: T) => number;
  /**
   * Replaces `select id from <table> where <due> order by <orderBy> limit ?` when the order is more than a sort: a
   * select of the ids to claim, `?` for the values of `params`, which are given the claim's extra arguments.
   */
  readonly pick?: {
    readonly sql: string;
    readonly params: (now: Date, limit: number, ...extra: number[]) => readonly unknown[];
  };
}

/**
 * Claims up to n due rows in one autocommitted statement, `update … where id in (select … limit n) and <due>
 * returning *`: one trip to the database, kept prepared on SQLite's connection (`PreparedWrite`), with no query built
 * per claim. The update takes only rows still due, so a row is never claimed twice; on PostgreSQL the inner select
 * skips rows another replica is claiming (`for update skip locked`), as `id = any(array(…))`: as `id in (…)` the
 * planner may rescan the locking select and claim more than n rows.
 */
export class PreparedClaim<T extends object> {
  private readonly statement: PreparedWrite;
  private readonly rows: EntityRows<T>;

  constructor(
    em: EntityManager,
    private readonly claim: ClaimSql<T>,
  ) {
    const { table, due, orderBy, set } = claim;
    const pick = claim.pick?.sql ?? `select id from ${table} where ${due} order by ${orderBy} limit ?`;
    const sql =
      dialectOf(em.getPlatform()) === 'postgresql'
        ? `update ${table} set ${set} where id = any(array(${pick} for update skip locked)) and ${due} returning *`
        : `update ${table} set ${set} where id in (${pick}) and ${due} returning *`;
    this.statement = new PreparedWrite(em, sql);
    this.rows = new EntityRows(em, claim.schema);
  }

  async take(now: Date, limit: number, lease: Lease, ...extra: number[]): Promise<T[]> {
    const dueParams = this.claim.dueParams(now);
    const pickParams = this.claim.pick ? this.claim.pick.params(now, limit, ...extra) : [...dueParams, limit];
    const rows = await this.statement.returning<Record<string, unknown>>([
      ...this.claim.setParams(now, lease),
      ...pickParams,
      ...dueParams,
    ]);
    return rows.map((row) => this.rows.entityOf(row)).sort(this.claim.compare);
  }
}
