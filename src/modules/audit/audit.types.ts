import type { Principal } from '../../common/auth/principal';

export const AUDIT_EVENTS = [
  'signup',
  'provisioned',
  'login_succeeded',
  'login_failed',
  'login_throttled',
  'login_backstop_engaged',
  'email_verified',
  'password_reset_requested',
  'password_reset',
  'key_created',
  'key_revoked',
  'api_key_rejected',
  'api_key_throttled',
  'role_changed',
  'outcome_reported',
  'datasets_read',
] as const;
export type AuditEventName = (typeof AUDIT_EVENTS)[number];

export interface AuditActor {
  readonly type: 'user' | 'api_key' | 'cli' | 'system' | 'anonymous';
  readonly id?: string;
}

export interface AuditEntry {
  readonly event: AuditEventName;
  /** Absent for events that belong to no organization (a failed login for an unknown address). */
  readonly orgId?: string;
  readonly actor: AuditActor;
  readonly ip?: string;
  readonly target?: { readonly type: string; readonly id: string };
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
}

export interface AuditEventView {
  readonly id: string;
  readonly orgId: string | null;
  readonly event: string;
  readonly actor: AuditActor;
  readonly ip: string | null;
  readonly target: { type: string; id: string } | null;
  readonly details: Record<string, unknown>;
  readonly createdAt: string;
}

export function actorOf(principal: Principal): AuditActor {
  if (principal.auth === 'session' && principal.userId) return { type: 'user', id: principal.userId };
  return { type: 'api_key', id: principal.keyId };
}
