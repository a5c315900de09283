import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { InboundDelivery } from './inbound-delivery.entity';

export class InboundListDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  /** Paging: deliveries received strictly before this time. */
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;
}

export function toInboundDeliveryResponse(delivery: InboundDelivery) {
  return {
    delivery_id: delivery.deliveryId,
    event: delivery.event,
    received_at: delivery.receivedAt.toISOString(),
    status: delivery.status,
    attempts: delivery.attempts,
    error: delivery.lastError ?? null,
    processed_at: delivery.processedAt ? delivery.processedAt.toISOString() : null,
  };
}
