import { EntitySchema } from '@mikro-orm/core';

/**
 * pending → delivered | gone (410) | blocked (egress policy) | failed (attempts exhausted) | expired (its deadline
 * passed before a 2xx: never sent again); redeliver → pending, or expired at once when the deadline has passed.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'blocked', 'gone', 'expired'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  id: string;
  orgId: string;
  event: string;
  url: string;
  jobId?: string | null;
  fireId?: string | null;
  /** After this the message is never sent (status `expired`); null: no deadline. */
  expiresAt?: Date | null;
  /** Standard Webhooks `webhook-id`: the same on every attempt, so receivers can deduplicate. */
  webhookId: string;
  body: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt?: Date | null;
  leaseUntil?: Date | null;
  leaseOwner?: string | null;
  createdAt: Date;
  deliveredAt?: Date | null;
}

export interface WebhookAttempt {
  id: number;
  deliveryId: string;
  attemptedAt: Date;
  statusCode?: number | null;
  durationMs: number;
  error?: string | null;
}

export const WebhookDeliverySchema = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    event: { type: 'string' },
    url: { type: 'text' },
    jobId: { type: 'string', fieldName: 'job_id', nullable: true },
    fireId: { type: 'string', fieldName: 'fire_id', nullable: true },
    expiresAt: { type: 'Date', fieldName: 'expires_at', nullable: true },
    webhookId: { type: 'string', fieldName: 'webhook_id', unique: true },
    body: { type: 'text' },
    status: { type: 'string' },
    attemptCount: { type: 'integer', fieldName: 'attempt_count' },
    nextAttemptAt: { type: 'Date', fieldName: 'next_attempt_at', nullable: true },
    leaseUntil: { type: 'Date', fieldName: 'lease_until', nullable: true },
    leaseOwner: { type: 'text', fieldName: 'lease_owner', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    deliveredAt: { type: 'Date', fieldName: 'delivered_at', nullable: true },
  },
});

export const WebhookAttemptSchema = new EntitySchema<WebhookAttempt>({
  name: 'WebhookAttempt',
  tableName: 'webhook_delivery_attempts',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    deliveryId: { type: 'string', fieldName: 'delivery_id' },
    attemptedAt: { type: 'Date', fieldName: 'attempted_at' },
    statusCode: { type: 'integer', fieldName: 'status_code', nullable: true },
    durationMs: { type: 'double', fieldName: 'duration_ms' },
    error: { type: 'text', nullable: true },
  },
});
