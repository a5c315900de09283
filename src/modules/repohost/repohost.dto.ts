import { IsISO8601, IsOptional } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { InboundDelivery } from './inbound-delivery.entity';

export class InboundListDto extends CursorPageQuery {
  /** Deliveries received strictly before this time: the paging of old, still accepted beside `cursor`. */
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
