import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { WorkLeases } from '../../common/database';
import { AppError, toAppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { WebhookOutboxService } from '../webhook-outbox/webhook-outbox.service';
import { Job } from './job.entity';
import { FinishedJob, JobsRepository } from './jobs.repository';
import { SimulationService } from '../simulation/simulation.service';

const POLL_INTERVAL_MS = 1000;

/** The job.completed body of the spec; the result is summarised, the full one stays at the poll URL. */
export function jobCompletedBody(job: Job, outcome: FinishedJob, now: Date): Record<string, unknown> {
  const result = (outcome.result ?? {}) as Record<string, unknown>;
  return {
    event: 'job.completed',
    job_id: job.id,
    run_id: outcome.runId ?? null,
    org_id: job.orgId,
    timestamp: now.toISOString(),
    status: outcome.status,
    ...(outcome.status === 'succeeded'
      ? {
          result: {
            recommended_action: result.recommended_action,
            expected_value: result.expected_value,
            confidence: result.confidence,
            evpi: result.evpi,
            runs: result.runs,
            seed: result.seed,
            engine_mode: result.engine_mode,
          },
        }
      : { error: outcome.error }),
  };
}

/**
 * Runs queued jobs on the engine, at most SERVICE_JOB_CONCURRENCY at a time. The queue lives in the database, so a
 * job accepted before a crash runs after it; the completion and its callback are written in one transaction. Jobs
 * are claimed in batches under leases this runner renews while they run: a replica that dies stops renewing, and
 * its jobs are claimed again (by any replica, itself restarted included) once their leases have run out.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Set<Promise<void>>();
  private readonly loop: BackgroundLoop;
  private readonly renewal: BackgroundLoop;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly outbox: WebhookOutboxService,
    private readonly simulation: SimulationService,
    private readonly leases: WorkLeases,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.loop = new BackgroundLoop(
      () => this.fill(),
      POLL_INTERVAL_MS,
      (error) => this.logger.error({ event: 'jobs_claim_failed', err: error }, 'could not claim jobs'),
    );
    this.renewal = new BackgroundLoop(
      () => this.renewLeases(),
      leases.renewEveryMs,
      (error) =>
        this.logger.error({ event: 'jobs_lease_renewal_failed', err: error }, 'could not renew leases'),
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.renewal.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.running]);
    await this.renewal.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  private async fill(): Promise<void> {
    while (!this.loop.isStopped && this.running.size < this.config.jobConcurrency) {
      const now = new Date();
      const claimed = await this.jobs.claim(
        now,
        this.config.jobConcurrency - this.running.size,
        this.leases.leaseFrom(now),
      );
      for (const job of claimed) {
        if (job.attempts > 1)
          this.logger.warn(
            { event: 'job_resumed', job_id: job.id, attempt: job.attempts },
            'abandoned job resumed',
          );
        const execution = this.execute(job).finally(() => {
          this.running.delete(execution);
          this.wake();
        });
        this.running.add(execution);
      }
      if (claimed.length === 0) return;
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.running.size === 0) return;
    await this.jobs.renewLeases(this.leases.leaseFrom(new Date()));
  }

  private async execute(job: Job): Promise<void> {
    const outcome = await this.run(job);
    const now = new Date();
    const recorded = await this.jobs.finish(job.id, this.leases.owner, outcome, now, async (em, finished) => {
      if (finished.callbackUrl) {
        await this.outbox.enqueue(em, {
          orgId: finished.orgId,
          event: 'job.completed',
          url: finished.callbackUrl,
          jobId: finished.id,
          body: jobCompletedBody(finished, outcome, now),
        });
      }
    });
    this.logger.info(
      { event: recorded ? 'job_finished' : 'job_result_discarded', job_id: job.id, status: outcome.status },
      recorded ? 'job finished' : 'job was cancelled or taken over while running; result discarded',
    );
    if (recorded && job.callbackUrl) this.outbox.wake();
  }

  private async run(job: Job): Promise<FinishedJob> {
    try {
      const request = JSON.parse(job.request) as Record<string, unknown>;
      const result = await this.simulation.simulate(job.orgId, request);
      return { status: 'succeeded', runId: result.run_id, result };
    } catch (error) {
      const appError: AppError = toAppError(error);
      if (appError.status >= 500)
        this.logger.error({ event: 'job_failed', job_id: job.id, err: error }, 'job failed');
      return { status: 'failed', error: { code: appError.code, message: appError.message } };
    }
  }
}
