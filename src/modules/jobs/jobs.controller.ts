import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { Idempotent, IdempotencyOperation, IdempotentRetry } from '../idempotency/idempotency.types';
import {
  JobListQuery,
  JobListResponse,
  JobResponse,
  SubmitJobDto,
  SubmittedJobResponse,
  toJobResponse,
  toSubmittedJobResponse,
} from './jobs.dto';
import { JobsService } from './jobs.service';

@RequireEntitlement('jobs')
@Controller('v1/jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @RequireRole('member')
  @Post()
  @HttpCode(202)
  @Idempotent<JobsController>((jobs, retry) => jobs.submitted(retry))
  // Validated by the service, not the global pipe (see JobsService.readSubmission); the contract shows the DTO.
  @ApiBody({ type: SubmitJobDto })
  @ApiAcceptedResponse({ type: SubmittedJobResponse, description: 'Queued; poll poll_url for the result.' })
  @ApiErrors('correlation_matrix_invalid')
  @ApiOperation({
    summary: 'Submit a simulation job',
    description:
      'Asynchronous: answers 202 with `job_id` and `poll_url` at once; poll `poll_url` for the result. A `callback_url` receives a webhook when the job finishes.',
  })
  async submit(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<SubmittedJobResponse> {
    const job = await this.jobs.submit(principal.orgId, body, operation);
    return toSubmittedJobResponse(job);
  }

  async submitted(retry: IdempotentRetry): Promise<SubmittedJobResponse | undefined> {
    const job = await this.jobs.submittedBy(retry.principal.orgId, retry.operationId);
    return job ? toSubmittedJobResponse(job) : undefined;
  }

  @Get()
  @ApiOkResponse({ type: JobListResponse })
  @ApiOperation({
    summary: 'List jobs',
    description: 'Newest first, 50 a page unless `limit` says otherwise.',
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: JobListQuery,
  ): Promise<JobListResponse> {
    const page = await this.jobs.list(principal.orgId, query.limit ?? 50, query.cursor);
    return { jobs: page.jobs.map(toJobResponse), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors('not_found')
  @ApiOperation({ summary: 'Get a job', description: 'Its status, and its result once it has finished.' })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<JobResponse> {
    return toJobResponse(await this.jobs.get(principal.orgId, id));
  }

  @RequireRole('member')
  @Delete(':id')
  @ApiOkResponse({ type: JobResponse, description: 'The job, cancelled.' })
  @ApiErrors('not_found', 'conflict')
  @ApiOperation({
    summary: 'Cancel a job',
    description: 'A job that has already finished answers 409 `conflict`.',
  })
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<JobResponse> {
    return toJobResponse(await this.jobs.cancel(principal.orgId, id));
  }
}
