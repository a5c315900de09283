import { Injectable } from '@nestjs/common';
import { raw } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import {
  Lease,
  PreparedClaim,
  sharedWrite,
  Transaction,
  transactionOf,
  updateByIds,
} from '../../common/database';
import { PreparedWrite } from '../../common/database/prepared-write';
import { pageOf, rowsToFetch, timeOrderedCursor } from '../../common/http/cursor-page';
import { timeOrderedId } from '../../common/time-ordered-id';
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

export interface Finish {
  readonly id: string;
  readonly outcome: FinishedJob;
  readonly now: Date;
}

/** Time-ordered ids, so the id alone pages a job list newest-first without ties. */
export function newJobId(now = Date.now()): string {
  return timeOrderedId(JOB_ID_PREFIX, now);
}

const JOB_ID_PREFIX = 'job';

const NEW_JOB_COLUMNS = [
  ['id', 'id'],
  ['orgId', 'org_id'],
  ['idempotencyId', 'idempotency_id'],
  ['status', 'status'],
  ['request', 'request'],
  ['callbackUrl', 'callback_url'],
  ['createdAt', 'created_at'],
  ['attempts', 'attempts'],
] as const satisfies readonly (readonly [keyof Job, string])[];
const INSERT_JOB =
  `insert into jobs (${NEW_JOB_COLUMNS.map(([, column]) => column).join(', ')}) ` +
  `values (${NEW_JOB_COLUMNS.map(() => '?').join(', ')})`;

// A running job whose lease ran out was abandoned by its replica; one without a lease predates leases.
const JOB_CLAIM = {
  schema: JobSchema,
  table: 'jobs',
  due: "(status = 'queued' or (status = 'running' and (lease_until is null or lease_until < ?)))",
  dueParams: (now: Date) => [now],
  orderBy: 'created_at, id',
  set: "status = 'running', started_at = ?, attempts = attempts + 1, lease_owner = ?, lease_until = ?",
  setParams: (now: Date, lease: Lease) => [now, lease.owner, lease.until],
  compare: (a: Job, b: Job) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
};

@Injectable()
export class JobsRepository {
  private readonly insertJob: PreparedWrite;
  private readonly claimJobs: PreparedClaim<Job>;

  constructor(private readonly em: EntityManager) {
    this.insertJob = new PreparedWrite(em, INSERT_JOB);
    this.claimJobs = new PreparedClaim(em, JOB_CLAIM);
  }

  // A prepared autocommitted insert, not batched: the submitter waits for it (docs/jobs.md). A second job for one
  // Idempotency-Key fails on the unique index, and the interceptor answers with the first.
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
    await this.insertJob.run(NEW_JOB_COLUMNS.map(([key]) => job[key]));
    return job;
  }

  async findForOrg(orgId: string, id: string): Promise<Job | null> {
    return this.em.fork().findOne(JobSchema, { id, orgId });
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<Job | null> {
    return this.em.fork().findOne(JobSchema, { orgId, idempotencyId });
  }

  async listForOrg(orgId: string, limit: number, cursor?: string): Promise<JobPage> {
    const after = cursor === undefined ? undefined : timeOrderedCursor(cursor, JOB_ID_PREFIX);
    const rows = await this.em.fork().find(JobSchema, after ? { orgId, id: { $lt: after } } : { orgId }, {
      orderBy: { id: 'desc' },
      limit: rowsToFetch(limit),
    });
    const page = pageOf(rows, limit, (last) => last.id);
    return { jobs: page.items, nextCursor: page.nextCursor };
  }

  // One prepared statement (`PreparedClaim`), so a job is never claimed by two replicas at once.
  claim(now: Date, limit: number, lease: Lease): Promise<Job[]> {
    return this.claimJobs.take(now, limit, lease);
  }

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

  // Only `ids` when given, so a claim whose answer was lost runs out and resumes.
  async renewLeases(lease: Lease, ids?: readonly string[]): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(
        JobSchema,
        { status: 'running', leaseOwner: lease.owner, ...(ids ? { id: { $in: [...ids] } } : {}) },
        { leaseUntil: lease.until },
      );
  }

  // A job cancelled meanwhile, or whose lease was lost to another replica, is left alone and gets false.
  finishAll<F extends Finish>(
    owner: string,
    batch: readonly F[],
    alsoWrite: (tx: Transaction, finished: readonly F[]) => Promise<void>,
  ): Promise<boolean[]> {
    return sharedWrite(this.em, async (em) => {
      const updated = await updateByIds(em, {
        table: 'jobs',
        ids: batch.map((finish) => finish.id),
        set: {
          status: { each: batch.map(({ outcome }) => outcome.status) },
          lease_until: { sql: 'null' },
          finished_at: { each: batch.map(({ now }) => now), timestamp: true },
          run_id: { each: batch.map(({ outcome }) => outcome.runId ?? null) },
          result: {
            each: batch.map(({ outcome }) =>
              outcome.result === undefined ? null : JSON.stringify(outcome.result),
            ),
          },
          error: {
            each: batch.map(({ outcome }) =>
              outcome.error === undefined ? null : JSON.stringify(outcome.error),
            ),
          },
        },
        guard: "status = 'running' and lease_owner = ?",
        guardParams: [owner],
      });
      const finished = batch.filter((finish) => updated.has(finish.id));
      if (finished.length > 0) await alsoWrite(transactionOf(em), finished);
      return batch.map((finish) => updated.has(finish.id));
    });
  }

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
