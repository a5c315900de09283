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
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export function toDeliveryResponse({ delivery, attempts }: DeliveryView) {
  return {
    id: delivery.id,
    event: delivery.event,
    url: delivery.url,
    job_id: delivery.jobId ?? null,
    webhook_id: delivery.webhookId,
    status: delivery.status,
    attempts: attempts.map((a) => ({
      at: a.attemptedAt.toISOString(),
      status_code: a.statusCode ?? null,
      duration_ms: a.durationMs,
      error: a.error ?? null,
    })),
    next_attempt_at: delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: delivery.deliveredAt ? delivery.deliveredAt.toISOString() : null,
  };
}
