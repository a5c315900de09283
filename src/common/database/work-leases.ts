import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sqlite';
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
