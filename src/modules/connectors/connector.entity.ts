import { EntitySchema } from '@mikro-orm/core';

export const CONNECTOR_STATUSES = ['untested', 'live', 'error'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

/** A stored connector; the whole config is sealed (AES-256-GCM, bound to the id), never stored in clear. */
export interface ConnectorEntity {
  id: string;
  orgId: string;
  name: string;
  connectorType: string;
  provider?: string | null;
  configSealed: string;
  /** Bumped on every config change, so a test that finishes after a PATCH does not record a stale result. */
  configVersion: number;
  status: ConnectorStatus;
  errorMessage?: string | null;
  errorType?: string | null;
  lastTestedAt?: string | null;
  /** The Idempotency-Key operation that created it (unique per organization), so a retry finds it. */
  idempotencyId?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Binds a connector's sealed config to its row, so ciphertexts cannot be swapped between connectors. */
export function connectorConfigAad(connectorId: string): string {
  return `connector:${connectorId}`;
}

export const ConnectorSchema = new EntitySchema<ConnectorEntity>({
  name: 'ConnectorEntity',
  tableName: 'connectors',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    name: { type: 'string' },
    connectorType: { type: 'string', fieldName: 'connector_type' },
    provider: { type: 'string', nullable: true },
    configSealed: { type: 'text', fieldName: 'config_sealed' },
    configVersion: { type: 'integer', fieldName: 'config_version' },
    status: { type: 'string' },
    errorMessage: { type: 'text', nullable: true, fieldName: 'error_message' },
    errorType: { type: 'string', nullable: true, fieldName: 'error_type' },
    lastTestedAt: { type: 'string', nullable: true, fieldName: 'last_tested_at' },
    idempotencyId: { type: 'string', nullable: true, fieldName: 'idempotency_id' },
    createdAt: { type: 'string', fieldName: 'created_at' },
    updatedAt: { type: 'string', fieldName: 'updated_at' },
  },
});
