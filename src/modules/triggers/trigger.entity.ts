import { EntitySchema } from '@mikro-orm/core';
import { ExecutionStatus, TriggerState } from './triggers.types';

export interface Trigger {
  id: string;
  orgId: string;
  name: string;
  enabled: boolean;
  condition: string;
  /** Null for a push source without a schedule: such a trigger is only evaluated by a fire call. */
  intervalS?: number | null;
  catchUpWindowS: number;
  cooldownS: number;
  keepFiringS: number;
  simulation: string;
  webhookUrl?: string | null;
  executionWebhookUrl?: string | null;
  autoExecute: boolean;
  executionMaxAgeS: number;
  plans: string;
  state: TriggerState;
  pendingSince?: Date | null;
  recoveringSince?: Date | null;
  lastEvaluatedAt?: Date | null;
  nextEvaluationAt?: Date | null;
  lastFireId?: string | null;
  lastFiredAt?: Date | null;
  lastError?: string | null;
  consecutiveErrors: number;
  /** Slots not evaluated: an overlap with a running evaluation, or missed while the daemon was down. */
  skippedSlots: number;
  /** Bumped by a change of condition or simulation, so an evaluation of the old definition writes nothing. */
  generation: number;
  /** Who is evaluating the trigger now, until when (a lease, so several daemons can share the work). */
  leaseOwner?: string | null;
  leaseUntil?: Date | null;
  idempotencyId?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const TriggerSchema = new EntitySchema<Trigger>({
  name: 'Trigger',
  tableName: 'triggers',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    condition: { type: 'text' },
    intervalS: { type: 'integer', fieldName: 'interval_s', nullable: true },
    catchUpWindowS: { type: 'integer', fieldName: 'catch_up_window_s' },
    cooldownS: { type: 'integer', fieldName: 'cooldown_s' },
    keepFiringS: { type: 'integer', fieldName: 'keep_firing_s' },
    simulation: { type: 'text' },
    webhookUrl: { type: 'text', fieldName: 'webhook_url', nullable: true },
    executionWebhookUrl: { type: 'text', fieldName: 'execution_webhook_url', nullable: true },
    autoExecute: { type: 'boolean', fieldName: 'auto_execute' },
    executionMaxAgeS: { type: 'integer', fieldName: 'execution_max_age_s' },
    plans: { type: 'text' },
    state: { type: 'string' },
    pendingSince: { type: 'Date', fieldName: 'pending_since', nullable: true },
    recoveringSince: { type: 'Date', fieldName: 'recovering_since', nullable: true },
    lastEvaluatedAt: { type: 'Date', fieldName: 'last_evaluated_at', nullable: true },
    nextEvaluationAt: { type: 'Date', fieldName: 'next_evaluation_at', nullable: true },
    lastFireId: { type: 'string', fieldName: 'last_fire_id', nullable: true },
    lastFiredAt: { type: 'Date', fieldName: 'last_fired_at', nullable: true },
    lastError: { type: 'text', fieldName: 'last_error', nullable: true },
    consecutiveErrors: { type: 'integer', fieldName: 'consecutive_errors' },
    skippedSlots: { type: 'integer', fieldName: 'skipped_slots' },
    generation: { type: 'integer' },
    leaseOwner: { type: 'string', fieldName: 'lease_owner', nullable: true },
    leaseUntil: { type: 'Date', fieldName: 'lease_until', nullable: true },
    idempotencyId: { type: 'string', fieldName: 'idempotency_id', nullable: true },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    updatedAt: { type: 'Date', fieldName: 'updated_at' },
  },
});

export interface TriggerFire {
  id: string;
  triggerId: string;
  orgId: string;
  /** The scheduled slot (ISO time) or `manual:<fire id>`: unique per trigger, so a slot fires at most once. */
  slot: string;
  /** The Idempotency-Key operation of a fire call (unique per trigger), so a retry finds it. */
  idempotencyId?: string | null;
  firedAt: Date;
  conditionMet: boolean;
  currentValue: number;
  runId?: string | null;
  recommendedAction?: string | null;
  expectedValue?: number | null;
  confidence?: number | null;
  executionStatus?: ExecutionStatus | null;
  policySnapshotId?: string | null;
  prediction?: string | null;
  realizedValue?: number | null;
  realizedVariables?: string | null;
  realizedActionValues?: string | null;
  outcomeAt?: Date | null;
  /** The user or API key that reported the outcome, and its role then (what calibration counts by). */
  reportedBy?: string | null;
  reportedByRole?: string | null;
}

export const TriggerFireSchema = new EntitySchema<TriggerFire>({
  name: 'TriggerFire',
  tableName: 'trigger_fires',
  properties: {
    id: { type: 'string', primary: true },
    triggerId: { type: 'string', fieldName: 'trigger_id' },
    orgId: { type: 'string', fieldName: 'org_id' },
    slot: { type: 'string' },
    idempotencyId: { type: 'string', fieldName: 'idempotency_id', nullable: true },
    firedAt: { type: 'Date', fieldName: 'fired_at' },
    conditionMet: { type: 'boolean', fieldName: 'condition_met' },
    currentValue: { type: 'double', fieldName: 'current_value' },
    runId: { type: 'string', fieldName: 'run_id', nullable: true },
    recommendedAction: { type: 'string', fieldName: 'recommended_action', nullable: true },
    expectedValue: { type: 'double', fieldName: 'expected_value', nullable: true },
    confidence: { type: 'double', nullable: true },
    executionStatus: { type: 'string', fieldName: 'execution_status', nullable: true },
    policySnapshotId: { type: 'string', fieldName: 'policy_snapshot_id', nullable: true },
    prediction: { type: 'text', nullable: true },
    realizedValue: { type: 'double', fieldName: 'realized_value', nullable: true },
    realizedVariables: { type: 'text', fieldName: 'realized_variables', nullable: true },
    realizedActionValues: { type: 'text', fieldName: 'realized_action_values', nullable: true },
    outcomeAt: { type: 'Date', fieldName: 'outcome_at', nullable: true },
    reportedBy: { type: 'string', fieldName: 'reported_by', nullable: true },
    reportedByRole: { type: 'string', fieldName: 'reported_by_role', nullable: true },
  },
});
