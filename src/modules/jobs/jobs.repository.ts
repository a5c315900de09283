import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { FilterQuery, raw } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/sqlite';
import { Lease, skippingLockedRows } from '../../common/database';
import { pageOf, rowsToFetch } from '../../common/http/cursor-page';
import { Job, JobSchema, JobStatus } from './job.entity';

export interface JobPage {
  readonly jobs: Job[];
  readonly nextCursor: string | null;
}

export interface FinishedJob {
  readonly status: Extract<JobStatus, 'succeeded' | 'failed'>;
  readonly runId?: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * Queued jobs, and running ones whose lease ran out: their replica died (or stalled past its lease). A running job
 * without a lease was started by a version before leases and is as abandoned as an expired one.
 */
function claimable(now: Date): FilterQuery<Job> {
  return {
    $or: [
      { status: 'queued' },
      { status: 'running', $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] },
    ],
  };
}

/** Time-ordered ids, so the id alone pages a job list newest-first without ties. */
export function newJobId(now = Date.now()): string {
  return `job_${now.toString(36).padStart(10, '0')}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

@Injectable()
export class JobsRepository {
  constructor(private readonly em: EntityManager) {}

  async create(orgId: string, request: unknown, callbackUrl: string | undefined, now: Date): Promise<Job> {
    const em = this.em.fork();
    const job = em.create(JobSchema, {
      id: newJobId(now.getTime()),
      orgId,
      status: 'queued',
      request: JSON.stringify(request),
      callbackUrl: callbackUrl ?? null,
      createdAt: now,
      attempts: 0,
    });
    await em.persistAndFlush(job);
    return job;
  }

  async findForOrg(orgId: string, id: string): Promise<Job | null> {
    return this.em.fork().findOne(JobSchema, { id, orgId });
  }

  async listForOrg(orgId: string, limit: number, cursor?: string): Promise<JobPage> {
    const rows = await this.em.fork().find(JobSchema, cursor ? { orgId, id: { $lt: cursor } } : { orgId }, {
      orderBy: { id: 'desc' },
      limit: rowsToFetch(limit),
    });
    const page = pageOf(rows, limit, (last) => last.id);
    return { jobs: page.items, nextCursor: page.nextCursor };
  }

  /**
   * Moves up to `limit` of the oldest claimable jobs to running under `lease`, in one transaction: the select skips
   * rows another replica is claiming, and the update claims only rows still claimable, so a job is never claimed by
   * two replicas at once.
   */
  async claim(now: Date, limit: number, lease: Lease): Promise<Job[]> {
    return this.em.fork().transactional(async (em) => {
      const due = await em.find(JobSchema, claimable(now), {
        orderBy: { createdAt: 'asc', id: 'asc' },
        limit,
        fields: ['id'],
        ...skippingLockedRows(em),
      });
      if (due.length === 0) return [];
      const ids = due.map((job) => job.id);
      await em.nativeUpdate(
        JobSchema,
        { $and: [{ id: { $in: ids } }, claimable(now)] },
        {
          status: 'running',
          startedAt: now,
          attempts: raw('attempts + 1'),
          leaseOwner: lease.owner,
          leaseUntil: lease.until,
        },
      );
      return em.find(
        JobSchema,
        { id: { $in: ids }, status: 'running', leaseOwner: lease.owner },
        { orderBy: { createdAt: 'asc', id: 'asc' }, refresh: true },
      );
    });
  }

  /** Extends every lease `lease.owner` still holds on a running job; a job taken over meanwhile is not touched. */
  async renewLeases(lease: Lease): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(JobSchema, { status: 'running', leaseOwner: lease.owner }, { leaseUntil: lease.until });
  }

  /**
   * Marks a running job finished and, in the same transaction, lets `alsoWrite` record what must follow it (the
   * job.completed outbox row). Returns false when the job was cancelled meanwhile or its lease was lost to another
   * replica; then nothing is written.
   */
  async finish(
    id: string,
    owner: string,
    outcome: FinishedJob,
    now: Date,
    alsoWrite: (em: EntityManager, job: Job) => Promise<void>,
  ): Promise<boolean> {
    return this.em.fork().transactional(async (em) => {
      const updated = await em.nativeUpdate(
        JobSchema,
        { id, status: 'running', leaseOwner: owner },
        {
          status: outcome.status,
          leaseUntil: null,
          finishedAt: now,
          runId: outcome.runId ?? null,
          result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
          error: outcome.error === undefined ? null : JSON.stringify(outcome.error),
        },
      );
      if (updated !== 1) return false;
      const job = await em.findOneOrFail(JobSchema, { id }, { refresh: true });
      await alsoWrite(em, job);
      return true;
    });
  }

  /** Cancels a queued or running job; false when it had already finished. */
  async cancel(orgId: string, id: string, now: Date): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(
        JobSchema,
        { id, orgId, status: { $in: ['queued', 'running'] } },
        { status: 'cancelled', finishedAt: now },
      );
    return updated === 1;
  }
}
