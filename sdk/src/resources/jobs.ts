import { PagedList } from '../pagination';
import { sleep } from '../retry';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, QueryOf, RequestBody, ResponseBody } from '../contract-types';
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
  constructor(readonly job: ResponseBody<'Jobs_get'>) {
    const { job_id, status } = job as { job_id?: unknown; status?: unknown };
    super(`Job ${String(job_id)} is still ${String(status)}: stopped waiting.`);
    this.name = 'JobWaitTimeoutError';
  }
}

export class Jobs {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/jobs: 202 `{job_id, poll_url, status}`; with `callback_url` a signed job.completed follows. */
  create(body: RequestBody<'Jobs_submit'>, options?: RequestOptions): Promise<ResponseBody<'Jobs_submit'>> {
    return this.transport.request({ method: 'POST', path: '/v1/jobs', body, options });
  }

  /** GET /v1/jobs/{id} */
  get(jobId: string, options?: RequestOptions): Promise<ResponseBody<'Jobs_get'>> {
    return this.transport.request({ method: 'GET', path: `/v1/jobs/${encodeURIComponent(jobId)}`, options });
  }

  /** GET /v1/jobs: newest first, paged by cursor. */
  list(
    query: QueryOf<'Jobs_list', ListQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'Jobs_list', 'jobs'>, PageItem<'Jobs_list', 'jobs'>> {
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
  async wait(jobId: string, options: WaitOptions = {}): Promise<ResponseBody<'Jobs_get'>> {
    const { pollInterval = 500, waitTimeout = 600_000, ...request } = options;
    const deadline = Date.now() + waitTimeout;
    for (;;) {
      const job = await this.get(jobId, request);
      const status = (job as { status?: unknown }).status;
      if (FINISHED_JOB_STATES.has(String(status))) return job;
      if (Date.now() + pollInterval > deadline) throw new JobWaitTimeoutError(job);
      await sleep(pollInterval, request.signal);
    }
  }
}
