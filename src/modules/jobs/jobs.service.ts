import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { httpUrlProblem } from '../../common/validation';
import { Job } from './job.entity';
import { JobRunner } from './job-runner';
import { JobPage, JobsRepository } from './jobs.repository';
import { SimulateRequest } from '../simulation/simulation.dto';
import { SimulationService } from '../simulation/simulation.service';

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
    private readonly simulation: SimulationService,
  ) {}

  /** `idempotencyId`: the Idempotency-Key operation, recorded on the job so that `submittedBy` finds it. */
  async submit(
    orgId: string,
    request: SimulateRequest,
    callbackUrl: string | undefined,
    idempotencyId?: string,
  ): Promise<Job> {
    if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl);
    const prepared = this.simulation.prepare(request);
    const job = await this.jobs.create(orgId, prepared, callbackUrl, new Date(), idempotencyId);
    this.runner.wake();
    return job;
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
