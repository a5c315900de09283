import { EntitySchema } from '@mikro-orm/core';

export type InboundStatus = 'received' | 'processed' | 'failed';

export interface InboundDelivery {
  id: string;
  deliveryId: string;
  event: string;
  receivedAt: Date;
  status: InboundStatus;
  attempts: number;
  lastError?: string | null;
  payload: string;
  processedAt?: Date | null;
  nextAttemptAt?: Date | null;
}

export const InboundDeliverySchema = new EntitySchema<InboundDelivery>({
  name: 'InboundDelivery',
  tableName: 'inbound_deliveries',
  properties: {
    id: { type: 'string', primary: true },
    deliveryId: { type: 'string', fieldName: 'delivery_id', unique: true },
    event: { type: 'string' },
    receivedAt: { type: 'Date', fieldName: 'received_at' },
    status: { type: 'string' },
    attempts: { type: 'integer' },
    lastError: { type: 'text', fieldName: 'last_error', nullable: true },
    payload: { type: 'text', lazy: true },
    processedAt: { type: 'Date', fieldName: 'processed_at', nullable: true },
    nextAttemptAt: { type: 'Date', fieldName: 'next_attempt_at', nullable: true },
  },
});
