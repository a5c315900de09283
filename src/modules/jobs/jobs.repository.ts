import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { FilterQuery, raw } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/sqlite';
import { claimRows, Lease, sharedWrite } from '../../common/database';
import { GroupCommit } from '../../common/group-commit';
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

interface Finish {
  readonly id: string;
  readonly owner: string;
  readonly outcome: FinishedJob;
  readonly now: Date;
  readonly alsoWrite: (em: EntityManager) => Promise<void>;
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
  private readonly finishes = new GroupCommit<Finish, boolean>((batch) => this.finishAll(batch));

  constructor(private readonly em: EntityManager) {}

  /**
   * One autocommitted insert. Not batched (`sharedWrite`): the submitter waits for it, and on SQLite a shared
   * transaction made it wait for every write queued ahead (the bench submitted at two thirds of the rate).
   */
  async create(
    orgId: string,
    request: unknown,
    callbackUrl: string | undefined,
    now: Date,
    idempotencyId?: string,
  ): Promise<Job> {
    const job: Job = {
      id: newJobId(now.getTime()),
      orgId,
      idempotencyId: idempotencyId ?? null,
      status: 'queued',
      request: JSON.stringify(request),
      callbackUrl: callbackUrl ?? null,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      runId: null,
      result: null,
      error: null,
      attempts: 0,
      leaseOwner: null,
      leaseUntil: null,
    };
    await this.em.fork().insert(JobSchema, job);
    return job;
  }

  async findForOrg(orgId: string, id: string): Promise<Job | null> {
    return this.em.fork().findOne(JobSchema, { id, orgId });
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<Job | null> {
    return this.em.fork().findOne(JobSchema, { orgId, idempotencyId });
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
   * Moves up to `limit` of the oldest claimable jobs to running under `lease`, in one statement (`claimRows`): a job
   * is never claimed by two replicas at once.
   */
  async claim(now: Date, limit: number, lease: Lease): Promise<Job[]> {
    return claimRows(this.em.fork(), JobSchema, {
      due: claimable(now),
      orderBy: { createdAt: 'asc', id: 'asc' },
      limit,
      set: {
        status: 'running',
        startedAt: now,
        attempts: raw('attempts + 1'),
        leaseOwner: lease.owner,
        leaseUntil: lease.until,
      },
      compare: (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
    });
  }

  /**
   * Gives back claimed jobs that never started (a runner stopping): queued again, as if never claimed, unless they
   * were cancelled or taken over meanwhile.
   */
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.em.fork().nativeUpdate(
      JobSchema,
      { id: { $in: [...ids] }, status: 'running', leaseOwner: owner },
      {
        status: 'queued',
        startedAt: null,
        attempts: raw('attempts - 1'),
        leaseOwner: null,
        leaseUntil: null,
      },
    );
  }

  /**
   * Extends the leases `lease.owner` still holds on running jobs — only on `ids` when given, the jobs it is really
   * running, so a claim whose answer was lost (the database went away after committing it) runs out and resumes.
   * A job taken over meanwhile is not touched.
   */
  async renewLeases(lease: Lease, ids?: readonly string[]): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(
        JobSchema,
        { status: 'running', leaseOwner: lease.owner, ...(ids ? { id: { $in: [...ids] } } : {}) },
        { leaseUntil: lease.until },
      );
  }

  /**
   * Marks a running job finished and, in the same transaction, lets `alsoWrite` record what must follow it (the
   * job.completed outbox row). Returns false when the job was cancelled meanwhile or its lease was lost to another
   * replica; then nothing is written. Finishes that arrive together share one transaction (`GroupCommit`).
   */
  finish(
    id: string,
    owner: string,
    outcome: FinishedJob,
    now: Date,
    alsoWrite: (em: EntityManager) => Promise<void>,
  ): Promise<boolean> {
    return this.finishes.submit({ id, owner, outcome, now, alsoWrite });
  }

  private finishAll(batch: readonly Finish[]): Promise<boolean[]> {
    return sharedWrite(this.em, async (em) => {
      const recorded: boolean[] = [];
      for (const { id, owner, outcome, now, alsoWrite } of batch) {
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
        if (updated === 1) await alsoWrite(em);
        recorded.push(updated === 1);
      }
      return recorded;
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
