import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SimulateRequest, SimulationResponse } from '../simulation/simulation.dto';
import { Job, JOB_STATUSES, JobStatus } from './job.entity';

export const MAX_CALLBACK_URL = 2048;

export class SubmitJobDto {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CALLBACK_URL)
  callback_url?: string;

  /** A /v1/simulate body; its problems are reported under `request.`. */
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SimulateRequest)
  request!: SimulateRequest;
}

export class JobListQuery extends CursorPageQuery {}

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export class JobErrorResponse {
  @ApiProperty({ example: 'engine_timeout' })
  code!: string;
  @ApiProperty({ example: 'The simulation exceeded its compute budget.' })
  message!: string;
}

export class JobResponse {
  @ApiProperty({ example: 'job_01hx3v9c2m4k' })
  job_id!: string;
  @ApiProperty({ enum: JOB_STATUSES })
  status!: JobStatus;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  started_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The simulation run, once it started.' })
  run_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  callback_url!: string | null;
  @ApiPropertyOptional({ type: SimulationResponse, description: 'The /v1/simulate answer, once succeeded.' })
  result?: SimulationResponse;
  @ApiPropertyOptional({ type: JobErrorResponse, description: 'Why it failed, once failed.' })
  error?: JobErrorResponse;
}

export class SubmittedJobResponse {
  @ApiProperty({ example: 'job_01hx3v9c2m4k' })
  job_id!: string;
  @ApiProperty({ example: '/v1/jobs/job_01hx3v9c2m4k' })
  poll_url!: string;
  @ApiProperty({ enum: JOB_STATUSES, example: 'queued' })
  status!: JobStatus;
}

export class JobListResponse {
  @ApiProperty({ type: [JobResponse] })
  jobs!: JobResponse[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last.',
  })
  next_cursor!: string | null;
}

export function toJobResponse(job: Job): JobResponse {
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    run_id: job.runId ?? null,
    callback_url: job.callbackUrl ?? null,
    ...(job.result ? { result: JSON.parse(job.result) as SimulationResponse } : {}),
    ...(job.error ? { error: JSON.parse(job.error) as JobErrorResponse } : {}),
  };
}

export function pollUrl(job: Job): string {
  return `/v1/jobs/${job.id}`;
}

export function toSubmittedJobResponse(job: Job): SubmittedJobResponse {
  return { job_id: job.id, poll_url: pollUrl(job), status: job.status };
}
