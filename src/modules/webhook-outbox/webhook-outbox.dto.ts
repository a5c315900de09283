import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { DELIVERY_STATUSES, DeliveryStatus } from './webhook-delivery.entity';
import { DeliveryView } from './webhook-outbox.service';

export class DeliveryListQuery extends CursorPageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  job_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  fire_id?: string;

  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class DeliveryAttemptResponse {
  @ApiProperty({ format: 'date-time' })
  at!: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The receiver's status; null when none came.",
  })
  status_code!: number | null;
  @ApiProperty({ type: 'integer' })
  duration_ms!: number;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the attempt failed (connection, egress policy).',
  })
  error!: string | null;
}

export class DeliveryResponse {
  @ApiProperty({ example: 'whd_01hx3v9c2m' })
  id!: string;
  @ApiProperty({ example: 'job.completed' })
  event!: string;
  @ApiProperty({ example: 'https://hooks.internal/decisions' })
  url!: string;
  @ApiProperty({ type: 'string', nullable: true })
  job_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The trigger fire the message reports.' })
  fire_id!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Not sent after this (status `expired`); null: no deadline.',
  })
  expires_at!: string | null;
  @ApiProperty({
    description: 'The webhook-id header: the same on every attempt, for receivers to deduplicate.',
  })
  webhook_id!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES })
  status!: DeliveryStatus;
  @ApiProperty({ type: [DeliveryAttemptResponse] })
  attempts!: DeliveryAttemptResponse[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  next_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  delivered_at!: string | null;
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryResponse] })
  deliveries!: DeliveryResponse[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last.',
  })
  next_cursor!: string | null;
}

export function toDeliveryResponse({ delivery, attempts }: DeliveryView): DeliveryResponse {
  return {
    id: delivery.id,
    event: delivery.event,
    url: delivery.url,
    job_id: delivery.jobId ?? null,
    fire_id: delivery.fireId ?? null,
    expires_at: delivery.expiresAt ? delivery.expiresAt.toISOString() : null,
    webhook_id: delivery.webhookId,
    status: delivery.status,
    attempts: attempts.map((a) => ({
      at: a.attemptedAt.toISOString(),
      status_code: a.statusCode ?? null,
      // Measured with a sub-millisecond clock; the contract answers whole milliseconds.
      duration_ms: Math.round(a.durationMs),
      error: a.error ?? null,
    })),
    next_attempt_at: delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: delivery.deliveredAt ? delivery.deliveredAt.toISOString() : null,
  };
}
