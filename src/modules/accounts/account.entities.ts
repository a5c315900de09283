import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import type { Role } from '../../common/auth/principal';

export interface OrganizationEntity {
  id: string;
  name: string;
  /** The first organization of the appliance; at most one (a partial unique index holds it). */
  isOperator: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface UserEntity {
  id: string;
  orgId: string;
  /** Stored trimmed and lower-cased; unique across the appliance. */
  email: string;
  name: string;
  role: Role;
  /** `scrypt$N$r$p$salt$hash`; null for a provisioned owner who has not set a password yet. */
  passwordHash: string | null;
  emailVerifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SessionEntity {
  id: string;
  userId: string;
  ip: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export type AuthTokenPurpose = 'verify_email' | 'reset_password';

export interface AuthTokenEntity {
  id: string;
  userId: string;
  purpose: AuthTokenPurpose;
  /** SHA-256 of the token; the token itself exists only in the e-mail. */
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export const OrganizationSchema = new EntitySchema<OrganizationEntity>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { type: 'string', primary: true },
    name: { type: 'string' },
    isOperator: { type: 'boolean' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
});

export const UserSchema = new EntitySchema<UserEntity>({
  name: 'User',
  tableName: 'users',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string' },
    email: { type: 'string', unique: true },
    name: { type: 'string' },
    role: { type: 'string' },
    passwordHash: { type: 'string', nullable: true },
    emailVerifiedAt: { type: 'string', nullable: true },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
});

export const SessionSchema = new EntitySchema<SessionEntity>({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: { type: 'string', primary: true },
    userId: { type: 'string' },
    ip: { type: 'string', nullable: true },
    createdAt: { type: 'string' },
    expiresAt: { type: 'string' },
    revokedAt: { type: 'string', nullable: true },
  },
});

export const AuthTokenSchema = new EntitySchema<AuthTokenEntity>({
  name: 'AuthToken',
  tableName: 'auth_tokens',
  properties: {
    id: { type: 'string', primary: true },
    userId: { type: 'string' },
    purpose: { type: 'string' },
    tokenHash: { type: 'string', unique: true },
    createdAt: { type: 'string' },
    expiresAt: { type: 'string' },
    usedAt: { type: 'string', nullable: true },
  },
});

export const ACCOUNT_SCHEMAS = [OrganizationSchema, UserSchema, SessionSchema, AuthTokenSchema];

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}
