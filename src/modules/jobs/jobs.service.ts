import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { httpUrlProblem, isPlainObject, parseWire } from '../../common/validation';
import { Job } from './job.entity';
import { JobRunner } from './job-runner';
import { MAX_CALLBACK_URL, SubmitJobDto } from './jobs.dto';
import { JobPage, JobsRepository } from './jobs.repository';
import { parsePlainSimulation, parseSimulation, storedSimulation } from '../simulation/simulation.types';

/** A callback must be an absolute http(s) URL; whether the egress policy allows it is decided at delivery time. */
export function checkCallbackUrl(value: string): void {
  const problem = httpUrlProblem(value);
  if (problem) throw AppError.validation([{ field: 'callback_url', problem }]);
}

@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly runner: JobRunner,
  ) {}

  async submit(orgId: string, body: unknown, idempotencyId?: string): Promise<Job> {
    const { callbackUrl, request } = this.readSubmission(body);
    if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl);
    const job = await this.jobs.create(orgId, request, callbackUrl, new Date(), idempotencyId);
    this.runner.wake();
    return job;
  }

  // The common body is read without the DTO classes, which cost more than the rest of a submission; anything else goes
  // through SubmitJobDto, which names every problem.
  private readSubmission(body: unknown): { callbackUrl?: string; request: Record<string, unknown> } {
    if (
      isPlainObject(body) &&
      Object.keys(body).every((key) => key === 'callback_url' || key === 'request')
    ) {
      const { callback_url: callbackUrl, request } = body;
      const isPlainUrl =
        callbackUrl === undefined ||
        (typeof callbackUrl === 'string' && callbackUrl.length <= MAX_CALLBACK_URL);
      const parsed = isPlainUrl ? parsePlainSimulation(request) : undefined;
      if (parsed) {
        return {
          callbackUrl: callbackUrl as string | undefined,
          request: storedSimulation(parsed, true),
        };
      }
    }
    const dto = parseWire(SubmitJobDto, body === undefined ? {} : body);
    return {
      callbackUrl: dto.callback_url,
      request: storedSimulation(parseSimulation(dto.request), true),
    };
  }

  submittedBy(orgId: string, idempotencyId: string): Promise<Job | null> {
    return this.jobs.findByIdempotency(orgId, idempotencyId);
  }

  async get(orgId: string, id: string): Promise<Job> {
    const job = await this.jobs.findForOrg(orgId, id);
    if (!job) throw new AppError('not_found', 'No job with this id.');
    return job;
  }

  list(orgId: string, limit: number, cursor?: string): Promise<JobPage> {
    return this.jobs.listForOrg(orgId, limit, cursor);
  }

  async cancel(orgId: string, id: string): Promise<Job> {
    const job = await this.get(orgId, id);
    if (job.status !== 'queued' && job.status !== 'running') {
      throw new AppError('conflict', `The job has already finished (${job.status}).`);
    }
    if (!(await this.jobs.cancel(orgId, id, new Date()))) {
      throw new AppError('conflict', 'The job finished before it could be cancelled.');
    }
    return this.get(orgId, id);
  }
}
