import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { SimulationResponse } from '../simulation/simulation.dto';
import { SimulationService } from '../simulation/simulation.service';
import { WebhookOutboxService } from '../webhook-outbox/webhook-outbox.service';
import { Trigger, TriggerFire } from './trigger.entity';
import { NewFire } from './trigger.repository';
import { ExecutionStatus } from './triggers.types';

/** The variable a trigger's simulation may declare to receive the value read at fire time. */
export const CURRENT_VALUE_VARIABLE = 'current_value';

/** A fire computed but not yet recorded: what the transaction writes. */
export interface ComputedFire {
  readonly fire: Omit<NewFire, 'slot'>;
  readonly alsoWrite: (em: EntityManager, fire: TriggerFire) => Promise<void>;
}

/**
 * Until outcomes are reported and a trigger's predictions prove calibrated, the default execution policy
 * (`calibrated_only`) lets nothing execute; the reasons are checked in the order a caller would fix them.
 */
export function executionStatusOf(trigger: Trigger, isCalibrated: boolean): ExecutionStatus {
  if (!trigger.autoExecute) return 'not_requested';
  if (!trigger.executionWebhookUrl) return 'skipped_no_url';
  if (!isCalibrated) return 'skipped_uncalibrated';
  return 'dispatched';
}

/** The stored simulation with `current_value` fixed at the value read. */
export function withCurrentValue(simulation: string, value: number): Record<string, unknown> {
  const body = JSON.parse(simulation) as { scenario: { variables: Record<string, unknown> } };
  if (Object.hasOwn(body.scenario.variables, CURRENT_VALUE_VARIABLE)) {
    body.scenario.variables[CURRENT_VALUE_VARIABLE] = { low: value, high: value };
  }
  return body;
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

/** Runs a fire's simulation and prepares what its transaction writes: the fire row and its outbox messages. */
@Injectable()
export class TriggerFiring {
  constructor(
    private readonly simulation: SimulationService,
    private readonly outbox: WebhookOutboxService,
  ) {}

  async compute(trigger: Trigger, value: number, firedAt: Date): Promise<ComputedFire> {
    const result: SimulationResponse = await this.simulation.simulate(
      trigger.orgId,
      withCurrentValue(trigger.simulation, value),
    );
    const executionStatus = executionStatusOf(trigger, false);
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
      prediction: JSON.stringify({
        seed: result.seed,
        actions: result.actions.map((a) => ({
          name: a.name,
          mean: a.mean,
          std_dev: a.std_dev,
          p5: a.p5,
          p95: a.p95,
        })),
      }),
    };
    return {
      fire,
      alsoWrite: async (em, recorded) => {
        if (trigger.webhookUrl) {
          await this.outbox.enqueue(em, {
            orgId: trigger.orgId,
            event: 'trigger.fired',
            url: trigger.webhookUrl,
            body: triggerFiredBody(trigger, recorded),
          });
        }
      },
    };
  }

  /** Delivers what was just recorded without waiting for the outbox's next poll. */
  wakeOutbox(): void {
    this.outbox.wake();
  }
}
