import type { Role } from '../../common/auth/principal';
import type { CreatedApiKey } from '../api-keys/api-keys.types';

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly isOperator: boolean;
  readonly createdAt: string;
}

export interface UserView {
  readonly id: string;
  readonly orgId: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly emailVerified: boolean;
}

export interface NewAccount {
  readonly email: string;
  readonly name: string;
  /** Absent when an operator provisions an owner who sets the password later through a reset link. */
  readonly password?: string;
  readonly organizationName?: string;
}

export interface CreatedAccount {
  readonly organization: Organization;
  readonly user: UserView;
  readonly apiKey: CreatedApiKey;
}

/** What credential resolution learns from a session token. */
export interface SessionIdentity {
  readonly sessionId: string;
  readonly userId: string;
  readonly orgId: string;
  readonly role: Role;
  readonly expiresAt: string;
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
