import { EntitySchema } from '@mikro-orm/core';
import type { Role } from '../../common/auth/principal';

export interface ApiKeyEntity {
  id: string;
  orgId: string;
  label: string;
  keyPrefix: string;
  /** HMAC-SHA256 of the raw key under the server's pepper; the raw key is never stored. */
  keyHash: string;
  role: Role;
  deviceLimit: number;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** The Idempotency-Key operation that created it (unique per organization), so a retry finds it. */
  idempotencyId?: string | null;
}

export const ApiKeySchema = new EntitySchema<ApiKeyEntity>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string' },
    label: { type: 'string' },
    keyPrefix: { type: 'string' },
    keyHash: { type: 'string', unique: true },
    role: { type: 'string' },
    deviceLimit: { type: 'number' },
    createdBy: { type: 'string', nullable: true },
    createdAt: { type: 'string' },
    expiresAt: { type: 'string', nullable: true },
    revokedAt: { type: 'string', nullable: true },
    lastUsedAt: { type: 'string', nullable: true },
    idempotencyId: { type: 'string', fieldName: 'idempotency_id', nullable: true },
  },
});
