import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
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

  /** Atomically moves the oldest queued job to running; null when the queue is empty. */
  async claimNext(now: Date): Promise<Job | null> {
    return this.em.fork().transactional(async (em) => {
      const next = await em.findOne(
        JobSchema,
        { status: 'queued' },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      if (!next) return null;
      const claimed = await em.nativeUpdate(
        JobSchema,
        { id: next.id, status: 'queued' },
        { status: 'running', startedAt: now, attempts: next.attempts + 1 },
      );
      if (claimed !== 1) return null;
      return em.findOne(JobSchema, { id: next.id }, { refresh: true });
    });
  }

  /** Jobs that were running when the daemon died run again (at-least-once, same job id). */
  async requeueInterrupted(): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(JobSchema, { status: 'running' }, { status: 'queued', startedAt: null });
  }

  /**
   * Marks a running job finished and, in the same transaction, lets `alsoWrite` record what must follow it (the
   * job.completed outbox row). Returns false when the job was cancelled meanwhile; then nothing is written.
   */
  async finish(
    id: string,
    outcome: FinishedJob,
    now: Date,
    alsoWrite: (em: EntityManager, job: Job) => Promise<void>,
  ): Promise<boolean> {
    return this.em.fork().transactional(async (em) => {
      const updated = await em.nativeUpdate(
        JobSchema,
        { id, status: 'running' },
        {
          status: outcome.status,
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
