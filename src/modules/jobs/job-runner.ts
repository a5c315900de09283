import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { retryWhileStoreUnavailable, WorkLeases } from '../../common/database';
import { AppError, isStoreUnavailable, toAppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { GroupCommit } from '../../common/group-commit';
import { WebhookOutboxService } from '../webhook-outbox/webhook-outbox.service';
import { Job } from './job.entity';
import { Finish, FinishedJob, JobsRepository } from './jobs.repository';
import { parseSimulation } from '../simulation/simulation.types';
import { SimulationRuns } from '../simulation/simulation-runs.service';
import { ComputedSimulation, SimulationService } from '../simulation/simulation.service';

const POLL_INTERVAL_MS = 1000;
/** How many jobs a runner holds (running or about to run), as a multiple of its concurrency. */
const CLAIM_AHEAD = 2;
/** Outcomes waiting to be written before the runner stops starting jobs: the database sets the pace then. */
const MAX_RECORDING = 256;
/** How long a claim waits for more work after being signalled: a little latency for far fewer claims. */
const CLAIM_LINGER_MS = 5;

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

interface Computed {
  readonly outcome: FinishedJob;
  readonly run?: ComputedSimulation['run'];
}

interface Finishing extends Finish {
  readonly job: Job;
  readonly run?: ComputedSimulation['run'];
}

// The queue is in the database (a job accepted before a crash runs after it), claimed under leases that a dead
// replica stops renewing.
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, Promise<void>>();
  private readonly recording = new Map<string, Promise<void>>();
  private readonly ready: Job[] = [];
  private readonly loop: BackgroundLoop;
  private readonly renewal: BackgroundLoop;
  private readonly finishes = new GroupCommit<Finishing, boolean>((batch) => this.finishAll(batch));

  constructor(
    private readonly jobs: JobsRepository,
    private readonly outbox: WebhookOutboxService,
    private readonly simulation: SimulationService,
    private readonly runs: SimulationRuns,
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
    const unstarted = this.ready.splice(0);
    await Promise.allSettled([
      ...this.running.values(),
      ...this.recording.values(),
      this.jobs.release(
        unstarted.map((job) => job.id),
        this.leases.owner,
      ),
    ]);
    await this.renewal.stop();
  }

  wake(): void {
    this.loop.wakeSoon(CLAIM_LINGER_MS);
  }

  // Claims take up to twice the concurrency, so the next jobs are held when one ends and one claim serves several.
  private async fill(): Promise<void> {
    const concurrency = this.config.jobConcurrency;
    while (!this.loop.isStopped && this.running.size < concurrency && this.recording.size < MAX_RECORDING) {
      const next = this.ready.shift();
      if (next) {
        this.start(next);
        continue;
      }
      const now = new Date();
      const claimed = await this.jobs.claim(
        now,
        CLAIM_AHEAD * concurrency - this.running.size,
        this.leases.leaseFrom(now),
      );
      if (claimed.length === 0) return;
      // A job of ours whose lease ran out while it waited for the database is still ours to finish: not twice.
      this.ready.push(...claimed.filter((job) => !this.holds(job.id)));
    }
  }

  private start(job: Job): void {
    if (job.attempts > 1)
      this.logger.warn(
        { event: 'job_resumed', job_id: job.id, attempt: job.attempts },
        'abandoned job resumed',
      );
    // A database outage neither fails the job nor loses its result: both wait for the database to come back.
    const computed = this.pastOutage(job, () => this.run(job));
    // The slot is the engine's: it frees when the computation ends, and the result is written beside the next one.
    const execution = computed
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.running.delete(job.id);
        this.loop.wake();
      });
    this.running.set(job.id, execution);
    const recording = computed
      .then((done) => this.record(job, done))
      .catch((error: unknown) =>
        this.logger.error(
          { event: 'job_finish_failed', job_id: job.id, err: error },
          'could not record job; it resumes when its lease runs out',
        ),
      )
      .finally(() => {
        this.recording.delete(job.id);
        this.loop.wakeSoon(CLAIM_LINGER_MS);
      });
    this.recording.set(job.id, recording);
  }

  private holds(id: string): boolean {
    return this.running.has(id) || this.recording.has(id) || this.ready.some((job) => job.id === id);
  }

  /** Renews only what this runner really holds, so a claim whose answer was lost runs out and resumes. */
  private async renewLeases(): Promise<void> {
    if (this.running.size === 0 && this.recording.size === 0 && this.ready.length === 0) return;
    const held = new Set([
      ...this.running.keys(),
      ...this.recording.keys(),
      ...this.ready.map((job) => job.id),
    ]);
    await this.jobs.renewLeases(this.leases.leaseFrom(new Date()), [...held]);
  }

  private pastOutage<T>(job: Job, work: () => Promise<T>): Promise<T> {
    return retryWhileStoreUnavailable(
      work,
      () => this.loop.isStopped,
      (error, attempt) =>
        this.logger.warn(
          { event: 'job_waits_for_store', job_id: job.id, attempt, reason: (error as Error).message },
          'the database is unreachable; the job is retried when it is back',
        ),
    );
  }

  private async record(job: Job, computed: Computed): Promise<void> {
    const { outcome, run } = computed;
    const now = new Date();
    const recorded = await this.pastOutage(job, () =>
      this.finishes.submit({ id: job.id, outcome, now, job, run }),
    );
    // A success is per-job chatter at a hundred a second; the submission's request line and the job's record remain.
    const level = recorded && outcome.status === 'succeeded' ? 'debug' : 'info';
    this.logger[level](
      { event: recorded ? 'job_finished' : 'job_result_discarded', job_id: job.id, status: outcome.status },
      recorded ? 'job finished' : 'job was cancelled or taken over while running; result discarded',
    );
    if (recorded && job.callbackUrl) this.outbox.wake();
  }

  // One transaction per batch, so a job.completed callback exists iff its job finished.
  private finishAll(batch: readonly Finishing[]): Promise<boolean[]> {
    return this.jobs.finishAll(this.leases.owner, batch, async (tx, finished) => {
      await this.runs.recordAll(
        tx,
        finished.flatMap(({ run }) => (run ? [run] : [])),
      );
      await this.outbox.enqueueAll(
        tx,
        finished.flatMap(({ job, outcome, now }) =>
          job.callbackUrl
            ? [
                {
                  orgId: job.orgId,
                  event: 'job.completed',
                  url: job.callbackUrl,
                  jobId: job.id,
                  body: jobCompletedBody(job, outcome, now),
                },
              ]
            : [],
        ),
      );
    });
  }

  private async run(job: Job): Promise<Computed> {
    try {
      const request = JSON.parse(job.request) as Record<string, unknown>;
      const { response, run } = await this.simulation.simulate(parseSimulation(request), {
        orgId: job.orgId,
        kind: 'scheduled',
      });
      return { outcome: { status: 'succeeded', runId: response.run_id, result: response }, run };
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      const appError: AppError = toAppError(error);
      if (appError.status >= 500)
        this.logger.error({ event: 'job_failed', job_id: job.id, err: error }, 'job failed');
      return { outcome: { status: 'failed', error: { code: appError.code, message: appError.message } } };
    }
  }
}
