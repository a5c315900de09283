import { EntitySchema } from '@mikro-orm/core';

export type IdempotencyState = 'in_flight' | 'completed';

/** The key itself is not kept; `responseSealed` may hold a new API key, so it is sealed. */
export interface IdempotencyRecord {
  id: string;
  orgId: string;
  fingerprint: string;
  state: IdempotencyState;
  leaseToken: string;
  /** While in flight: when the claim lapses if the request that holds it stops renewing it (e.g. a crash). */
  leaseUntil: Date;
  // Kept when a lapsed claim is taken over: its retry is the same operation.
  operationId: string | null;
  statusCode: number | null;
  responseSealed: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export const IdempotencyRecordSchema = new EntitySchema<IdempotencyRecord>({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_keys',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    fingerprint: { type: 'string' },
    state: { type: 'string' },
    leaseToken: { type: 'string', fieldName: 'lease_token' },
    leaseUntil: { type: 'Date', fieldName: 'lease_until' },
    operationId: { type: 'string', fieldName: 'operation_id', nullable: true },
    statusCode: { type: 'integer', fieldName: 'status_code', nullable: true },
    responseSealed: { type: 'text', fieldName: 'response_sealed', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    expiresAt: { type: 'Date', fieldName: 'expires_at' },
  },
});

export function idempotencyResponseAad(id: string): string {
  return `idempotency_keys:${id}:response`;
}
