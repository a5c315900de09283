import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { Idempotent } from '../idempotency/idempotency.types';
import { JobListQuery, pollUrl, SubmitJobDto, toJobResponse } from './jobs.dto';
import { JobsService } from './jobs.service';

@RequireEntitlement('jobs')
@Controller('v1/jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @RequireRole('member')
  @Post()
  @HttpCode(202)
  @Idempotent()
  async submit(@CurrentPrincipal() principal: Principal, @Body() body: SubmitJobDto) {
    const job = await this.jobs.submit(principal.orgId, body.request, body.callback_url);
    return { job_id: job.id, poll_url: pollUrl(job), status: job.status };
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: JobListQuery) {
    const page = await this.jobs.list(principal.orgId, query.limit ?? 50, query.cursor);
    return { jobs: page.jobs.map(toJobResponse), next_cursor: page.nextCursor };
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return toJobResponse(await this.jobs.get(principal.orgId, id));
  }

  @RequireRole('member')
  @Delete(':id')
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return toJobResponse(await this.jobs.cancel(principal.orgId, id));
  }
}
