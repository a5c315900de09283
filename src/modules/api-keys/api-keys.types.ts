import type { Role } from '../../common/auth/principal';
import type { AuditActor } from '../audit/audit.types';

export interface ApiKeyRecord {
  readonly id: string;
  readonly orgId: string;
  readonly label: string;
  readonly role: Role;
  readonly deviceLimit: number;
  readonly expiresAt: string | null;
}

export interface ApiKeyView extends ApiKeyRecord {
  readonly keyPrefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export interface CreatedApiKey extends ApiKeyView {
  /** Shown once, in the create (or sign-up) response. */
  readonly rawKey: string;
}

export interface KeyActor {
  readonly orgId: string;
  readonly role: Role;
  readonly actor: AuditActor;
  readonly ip?: string;
}

export interface NewApiKey {
  readonly label: string;
  readonly role?: Role;
  readonly deviceLimit?: number;
  readonly expiresAt?: string;
  readonly idempotencyId?: string;
}

export { isWellFormedApiKey, keyPrefixOf, looksLikeApiKey } from './api-key-format';
