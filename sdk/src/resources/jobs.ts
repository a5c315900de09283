import { PagedList } from '../pagination';
import { sleep } from '../retry';
import type { RequestOptions, Transport } from '../transport';
import type { JsonObject } from '../types';
import type { ListQuery } from './connectors';

/** Job states after which nothing changes. */
export const FINISHED_JOB_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

export interface WaitOptions extends RequestOptions {
  /** Milliseconds between polls. Default 500. */
  pollInterval?: number;
  /** Give up after this many milliseconds. Default 600000 (10 min). */
  waitTimeout?: number;
}

/** jobs.wait gave up before the job finished; `job` is its last known state. */
export class JobWaitTimeoutError extends Error {
  constructor(readonly job: JsonObject) {
    super(`Job ${String(job.job_id)} is still ${String(job.status)}: stopped waiting.`);
    this.name = 'JobWaitTimeoutError';
  }
}

export class Jobs {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/jobs: 202 `{job_id, poll_url, status}`; with `callback_url` a signed job.completed follows. */
  create(body: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'POST', path: '/v1/jobs', body, options });
  }

  /** GET /v1/jobs/{id} */
  get(jobId: string, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'GET', path: `/v1/jobs/${encodeURIComponent(jobId)}`, options });
  }

  /** GET /v1/jobs: newest first, paged by cursor. */
  list(query: ListQuery = {}, options?: RequestOptions): PagedList<{ jobs: JsonObject[]; next_cursor?: string | null }, JsonObject> {
    return new PagedList(
      (cursor) =>
        this.transport.request({
          method: 'GET',
          path: '/v1/jobs',
          query: { limit: query.limit, cursor: cursor ?? query.cursor },
          options,
        }),
      (page) => page.jobs,
    );
  }

  /** Polls the job until it is succeeded, failed or cancelled, and returns it. */
  async wait(jobId: string, options: WaitOptions = {}): Promise<JsonObject> {
    const { pollInterval = 500, waitTimeout = 600_000, ...request } = options;
    const deadline = Date.now() + waitTimeout;
    for (;;) {
      const job = await this.get(jobId, request);
      if (FINISHED_JOB_STATES.has(String(job.status))) return job;
      if (Date.now() + pollInterval > deadline) throw new JobWaitTimeoutError(job);
      await sleep(pollInterval, request.signal);
    }
  }
}
