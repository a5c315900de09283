import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { SimulateRequest } from '../simulation/simulation.dto';
import { Job } from './job.entity';

export class SubmitJobDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
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

export function toJobResponse(job: Job) {
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    run_id: job.runId ?? null,
    callback_url: job.callbackUrl ?? null,
    ...(job.result ? { result: JSON.parse(job.result) as unknown } : {}),
    ...(job.error ? { error: JSON.parse(job.error) as unknown } : {}),
  };
}

export function pollUrl(job: Job): string {
  return `/v1/jobs/${job.id}`;
}
