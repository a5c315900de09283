import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { InboundDelivery, InboundStatus } from './inbound-delivery.entity';

const INBOUND_STATUSES: readonly InboundStatus[] = ['received', 'processed', 'failed'];

export class InboundListDto extends CursorPageQuery {
  /** Deliveries received strictly before this time: the paging of old, still accepted beside `cursor`. */
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;
}

export class InboundDeliveryResponse {
  @ApiProperty({ description: 'The X-GitHub-Delivery header of the delivery.' })
  delivery_id!: string;
  @ApiProperty({ description: 'The X-GitHub-Event header.', example: 'push' })
  event!: string;
  @ApiProperty({ format: 'date-time' })
  received_at!: string;
  @ApiProperty({ enum: INBOUND_STATUSES })
  status!: InboundStatus;
  @ApiProperty({ type: 'integer', description: 'Processing attempts so far.' })
  attempts!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why the last attempt failed.' })
  error!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  processed_at!: string | null;
}

export class InboundDeliveryListResponse {
  @ApiProperty({ type: [InboundDeliveryResponse], description: 'Newest first.' })
  deliveries!: InboundDeliveryResponse[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last.',
  })
  next_cursor!: string | null;
}

export class InboundAcceptedResponse {
  @ApiProperty({ enum: [true] })
  accepted!: true;
  @ApiProperty()
  delivery_id!: string;
  @ApiProperty({ description: 'True when this delivery id was received before: it is not processed again.' })
  duplicate!: boolean;
}

export function toInboundDeliveryResponse(delivery: InboundDelivery): InboundDeliveryResponse {
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
