import { EntitySchema } from '@mikro-orm/core';

/** An org's execution policy as of one change: never updated, so a decision names exactly the rules it was taken under. */
export interface ExecutionPolicySnapshot {
  id: string;
  orgId: string;
  /** 0 for the default the org starts with, then one more per change. */
  seq: number;
  mode: ExecutionMode;
  minOutcomes: number;
  /** The user or API key that made the change; null for the default. */
  createdBy?: string | null;
  createdAt: Date;
}

/** `calibrated_only` (default): execute only calibrated triggers; `always`; `never`. */
export const EXECUTION_MODES = ['calibrated_only', 'always', 'never'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

export const ExecutionPolicySnapshotSchema = new EntitySchema<ExecutionPolicySnapshot>({
  name: 'ExecutionPolicySnapshot',
  tableName: 'execution_policy_snapshots',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    seq: { type: 'integer' },
    mode: { type: 'string' },
    minOutcomes: { type: 'integer', fieldName: 'min_outcomes' },
    createdBy: { type: 'string', fieldName: 'created_by', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
  },
});
