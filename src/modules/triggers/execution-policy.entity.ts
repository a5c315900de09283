import { EntitySchema } from '@mikro-orm/core';
import type { Role } from '../../common/auth/principal';

/** Never updated, so a decision names exactly the rules it was taken under. */
export interface ExecutionPolicySnapshot {
  id: string;
  orgId: string;
  seq: number;
  mode: ExecutionMode;
  minOutcomes: number;
  /** The roles whose outcome reports count toward calibration, comma-separated (`admin,owner` by default). */
  outcomeReporterRoles: string;
  createdBy?: string | null;
  createdAt: Date;
}

export const EXECUTION_MODES = ['calibrated_only', 'always', 'never'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** Roles that may report outcomes at all (viewers cannot), and so may be named as counting toward calibration. */
export const OUTCOME_REPORTER_ROLES = ['member', 'admin', 'owner'] as const satisfies readonly Role[];
export type OutcomeReporterRole = (typeof OUTCOME_REPORTER_ROLES)[number];
/** Admins (and the owner above them): a member must not be able to make a trigger execute on its own reports. */
export const DEFAULT_OUTCOME_REPORTER_ROLES: readonly OutcomeReporterRole[] = ['admin', 'owner'];

export function reporterRolesOf(
  snapshot: Pick<ExecutionPolicySnapshot, 'outcomeReporterRoles'>,
): OutcomeReporterRole[] {
  return snapshot.outcomeReporterRoles
    .split(',')
    .filter((role): role is OutcomeReporterRole =>
      (OUTCOME_REPORTER_ROLES as readonly string[]).includes(role),
    );
}

export const ExecutionPolicySnapshotSchema = new EntitySchema<ExecutionPolicySnapshot>({
  name: 'ExecutionPolicySnapshot',
  tableName: 'execution_policy_snapshots',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    seq: { type: 'integer' },
    mode: { type: 'string' },
    minOutcomes: { type: 'integer', fieldName: 'min_outcomes' },
    outcomeReporterRoles: { type: 'text', fieldName: 'outcome_reporter_roles' },
    createdBy: { type: 'string', fieldName: 'created_by', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
  },
});
