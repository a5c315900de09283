import { EntitySchema } from '@mikro-orm/core';

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface Job {
  id: string;
  orgId: string;
  status: JobStatus;
  request: string;
  callbackUrl?: string | null;
  createdAt: Date;
  startedAt?: Date | null;
  finishedAt?: Date | null;
  runId?: string | null;
  result?: string | null;
  error?: string | null;
  /** How many times the job was started; > 1 after its replica died and another took it over. */
  attempts: number;
  /** The replica running it (`WorkLeases.owner`), and until when its claim holds unless renewed. */
  leaseOwner?: string | null;
  leaseUntil?: Date | null;
  idempotencyId?: string | null;
}

export const JobSchema = new EntitySchema<Job>({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    status: { type: 'string' },
    request: { type: 'text' },
    callbackUrl: { type: 'text', fieldName: 'callback_url', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    startedAt: { type: 'Date', fieldName: 'started_at', nullable: true },
    finishedAt: { type: 'Date', fieldName: 'finished_at', nullable: true },
    runId: { type: 'string', fieldName: 'run_id', nullable: true },
    result: { type: 'text', nullable: true },
    error: { type: 'text', nullable: true },
    attempts: { type: 'integer' },
    leaseOwner: { type: 'text', fieldName: 'lease_owner', nullable: true },
    leaseUntil: { type: 'Date', fieldName: 'lease_until', nullable: true },
    idempotencyId: { type: 'string', fieldName: 'idempotency_id', nullable: true },
  },
});
