import { Injectable } from '@nestjs/common';
import { parseSimulation } from '../simulation/simulation.types';
import { SimulationRuns } from '../simulation/simulation-runs.service';
import { SimulationService } from '../simulation/simulation.service';
import type { EngineWorkKind } from '../engine/engine.types';
import { WebhookOutboxService } from '../webhook-outbox/webhook-outbox.service';
import { Trigger, TriggerFire } from './trigger.entity';
import { ExecutionMode, ExecutionPolicySnapshot, reporterRolesOf } from './execution-policy.entity';
import { ExecutionPolicyService } from './execution-policy.service';
import {
  Calibration,
  calibrationOf,
  calibrationWindow,
  Prediction,
  predictionOf,
  ScoredOutcome,
} from './trigger-calibration';
import { FireRows, NewFire, TriggerRepository } from './trigger.repository';
import { PlanStep } from './triggers.dto';
import { ExecutionStatus } from './triggers.types';

export const CURRENT_VALUE_VARIABLE = 'current_value';

export interface ComputedFire {
  readonly fire: Omit<NewFire, 'slot'>;
  readonly alsoWrite: FireRows;
}

/** Checked in the order a caller would fix them: the trigger's settings, the org's policy, then calibration. */
export function executionStatusOf(
  trigger: Trigger,
  mode: ExecutionMode,
  isCalibrated: boolean,
): ExecutionStatus {
  if (!trigger.autoExecute) return 'not_requested';
  if (!trigger.executionWebhookUrl) return 'skipped_no_url';
  if (mode === 'never') return 'skipped_policy';
  if (mode === 'calibrated_only' && !isCalibrated) return 'skipped_uncalibrated';
  return 'dispatched';
}

export function withCurrentValue(simulation: string, value: number): Record<string, unknown> {
  const body = JSON.parse(simulation) as { scenario: { variables: Record<string, unknown> } };
  if (Object.hasOwn(body.scenario.variables, CURRENT_VALUE_VARIABLE)) {
    body.scenario.variables[CURRENT_VALUE_VARIABLE] = { low: value, high: value };
  }
  return body;
}

export function decisionExecuteBody(trigger: Trigger, fire: TriggerFire): Record<string, unknown> {
  const plans = JSON.parse(trigger.plans) as Record<string, PlanStep[]>;
  const action = fire.recommendedAction ?? '';
  return {
    event: 'decision.execute',
    trigger_id: trigger.id,
    trigger_name: trigger.name,
    fired_at: fire.firedAt.toISOString(),
    policy_snapshot_id: fire.policySnapshotId,
    decision_plan: {
      recommended_action: action,
      steps: Object.hasOwn(plans, action) ? plans[action] : [],
    },
    fire_id: fire.id,
    run_id: fire.runId,
    expected_value: fire.expectedValue,
    confidence: fire.confidence,
  };
}

export function scoredOutcomeOf(fire: TriggerFire): ScoredOutcome | undefined {
  if (fire.realizedValue == null || !fire.prediction) return undefined;
  const prediction = JSON.parse(fire.prediction) as Prediction;
  const action = prediction.actions.find((a) => a.name === fire.recommendedAction);
  if (!action) return undefined;
  const judged = fire.realizedActionValues
    ? (JSON.parse(fire.realizedActionValues) as { recommended_was_best: boolean })
    : undefined;
  return {
    realized: fire.realizedValue,
    p5: action.p5,
    p95: action.p95,
    recommendedWasBest: judged ? judged.recommended_was_best : null,
  };
}

export function triggerFiredBody(trigger: Trigger, fire: TriggerFire): Record<string, unknown> {
  return {
    event: 'trigger.fired',
    trigger_id: trigger.id,
    trigger_name: trigger.name,
    condition_met: fire.conditionMet,
    current_value: fire.currentValue,
    run_id: fire.runId,
    recommended_action: fire.recommendedAction,
    expected_value: fire.expectedValue,
    confidence: fire.confidence,
    fire_id: fire.id,
    execution_status: fire.executionStatus,
    fired_at: fire.firedAt.toISOString(),
  };
}

/** Nothing is written here: the run is recorded with the fire, not before it. */
@Injectable()
export class TriggerFiring {
  constructor(
    private readonly simulation: SimulationService,
    private readonly runs: SimulationRuns,
    private readonly outbox: WebhookOutboxService,
    private readonly triggers: TriggerRepository,
    private readonly policies: ExecutionPolicyService,
  ) {}

  /** `kind` is scheduled for an evaluation the appliance runs on its own, interactive for a caller's manual fire. */
  async compute(trigger: Trigger, value: number, firedAt: Date, kind: EngineWorkKind): Promise<ComputedFire> {
    const parsed = parseSimulation(withCurrentValue(trigger.simulation, value));
    const [{ response: result, run }, policy] = await Promise.all([
      this.simulation.simulate(parsed, { orgId: trigger.orgId, kind }),
      this.policies.current(trigger.orgId),
    ]);
    const needsCalibration =
      trigger.autoExecute && !!trigger.executionWebhookUrl && policy.mode === 'calibrated_only';
    const isCalibrated =
      needsCalibration && (await this.calibration(trigger.id, policy)).status === 'calibrated';
    const executionStatus = executionStatusOf(trigger, policy.mode, isCalibrated);
    const scenario = (JSON.parse(trigger.simulation) as { scenario: Parameters<typeof predictionOf>[0] })
      .scenario;
    const fire: Omit<NewFire, 'slot'> = {
      triggerId: trigger.id,
      orgId: trigger.orgId,
      firedAt,
      conditionMet: true,
      currentValue: value,
      runId: result.run_id,
      recommendedAction: result.recommended_action,
      expectedValue: result.expected_value,
      confidence: result.confidence,
      executionStatus,
      policySnapshotId: policy.id,
      prediction: JSON.stringify(predictionOf(scenario, result.seed, result.actions)),
    };
    return {
      fire,
      alsoWrite: async (tx, recorded) => {
        await this.runs.recordAll(tx, [run]);
        await this.outbox.enqueueAll(tx, [
          ...(trigger.webhookUrl
            ? [
                {
                  orgId: trigger.orgId,
                  event: 'trigger.fired',
                  url: trigger.webhookUrl,
                  fireId: recorded.id,
                  body: triggerFiredBody(trigger, recorded),
                },
              ]
            : []),
          ...(executionStatus === 'dispatched' && trigger.executionWebhookUrl
            ? [
                {
                  orgId: trigger.orgId,
                  event: 'decision.execute',
                  url: trigger.executionWebhookUrl,
                  fireId: recorded.id,
                  expiresAt: new Date(recorded.firedAt.getTime() + trigger.executionMaxAgeS * 1000),
                  body: decisionExecuteBody(trigger, recorded),
                },
              ]
            : []),
        ]);
      },
    };
  }

  async calibrationUnderPolicy(
    orgId: string,
    triggerId: string,
  ): Promise<{ calibration: Calibration; policy: ExecutionPolicySnapshot }> {
    const policy = await this.policies.current(orgId);
    return { calibration: await this.calibration(triggerId, policy), policy };
  }

  private async calibration(triggerId: string, policy: ExecutionPolicySnapshot): Promise<Calibration> {
    const { fires, total, uncounted } = await this.triggers.recentOutcomes(
      triggerId,
      calibrationWindow(policy.minOutcomes),
      reporterRolesOf(policy),
    );
    const scored = fires.map(scoredOutcomeOf).filter((o): o is ScoredOutcome => o !== undefined);
    return calibrationOf(scored, total, uncounted, policy.minOutcomes);
  }

  wakeOutbox(): void {
    this.outbox.wake();
  }
}
