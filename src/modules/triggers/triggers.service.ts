import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError, toAppError } from '../../common/errors';
import { parseWire } from '../../common/validation';
import { QueryRequest } from '../query/query.dto';
import { QueryService } from '../query/query.service';
import { parseSimulation, storedSimulation } from '../simulation/simulation.types';
import { AuditService } from '../audit/audit.service';
import { actorOf } from '../audit/audit.types';
import type { Principal } from '../../common/auth/principal';
import { reporterRolesOf } from './execution-policy.entity';
import { ExecutionPolicyService } from './execution-policy.service';
import { Trigger, TriggerFire } from './trigger.entity';
import { transition } from './trigger-evaluation';
import { TriggerEvaluator } from './trigger-evaluator';
import { ComputedFire, TriggerFiring } from './trigger-firing';
import { TriggerReader } from './trigger-reader';
import { Judgement, judgeOutcome, Prediction } from './trigger-calibration';
import {
  FirePage,
  NO_SCHEDULED_ROOM,
  OutcomeFields,
  TriggerChanges,
  TriggerPage,
  TriggerRepository,
} from './trigger.repository';
import {
  parseCondition,
  queryBodyOf,
  StoredCondition,
  StoredSchedule,
  toStoredCondition,
  toStoredSchedule,
  underQuery,
} from './trigger-definition';
import {
  CalibrationResponse,
  CreateTriggerDto,
  EvaluationResponse,
  ReportOutcomeDto,
  toCalibrationResponse,
  UpdateTriggerDto,
} from './triggers.dto';
import { DEFAULT_EXECUTION_MAX_AGE_S } from './triggers.types';

@Injectable()
export class TriggersService {
  constructor(
    private readonly triggers: TriggerRepository,
    private readonly queries: QueryService,
    private readonly reader: TriggerReader,
    private readonly firing: TriggerFiring,
    private readonly evaluator: TriggerEvaluator,
    private readonly clock: Clock,
    private readonly policies: ExecutionPolicyService,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(orgId: string, body: CreateTriggerDto, idempotencyId?: string): Promise<Trigger> {
    const condition = toStoredCondition(body.condition);
    await this.checkSource(orgId, condition);
    const schedule = toStoredSchedule(body.schedule);
    const enabled = body.enabled ?? true;
    const now = this.clock.now();
    const created = await this.triggers.create(
      {
        orgId,
        name: body.name,
        enabled,
        condition: JSON.stringify(condition),
        intervalS: schedule?.interval_s ?? null,
        catchUpWindowS: schedule?.catch_up_window_s ?? 0,
        cooldownS: body.cooldown_s ?? 0,
        keepFiringS: body.keep_firing_s ?? 0,
        simulation: JSON.stringify(storedSimulation(parseSimulation(body.simulation), false)),
        webhookUrl: body.webhook_url ?? null,
        executionWebhookUrl: body.execution_webhook_url ?? null,
        autoExecute: body.auto_execute ?? false,
        executionMaxAgeS: body.execution_max_age_s ?? DEFAULT_EXECUTION_MAX_AGE_S,
        plans: JSON.stringify(body.plans ?? {}),
        ...restartedState(enabled, scheduledInterval(condition, schedule), now),
        lastFireId: null,
        lastFiredAt: null,
        consecutiveErrors: 0,
        skippedSlots: 0,
        generation: 0,
        idempotencyId: idempotencyId ?? null,
      },
      now,
      enabled && scheduledInterval(condition, schedule) !== null ? this.scheduledCap() : undefined,
    );
    if (created === NO_SCHEDULED_ROOM) throw this.noScheduledRoom();
    this.evaluator.wake();
    return created;
  }

  /** Scheduled evaluations run on the appliance's engine pool, so one organization keeps at most this many active. */
  private scheduledCap(): number | undefined {
    return this.config.orgMaxTriggers === 0 ? undefined : this.config.orgMaxTriggers;
  }

  private noScheduledRoom(): AppError {
    return new AppError(
      'conflict',
      `The organization already has ${this.config.orgMaxTriggers} active scheduled triggers (SERVICE_ORG_MAX_TRIGGERS): disable or delete one first.`,
    );
  }

  createdBy(orgId: string, idempotencyId: string): Promise<Trigger | null> {
    return this.triggers.findByIdempotency(orgId, idempotencyId);
  }

  firedBy(orgId: string, id: string, idempotencyId: string): Promise<TriggerFire | null> {
    return this.triggers.findFireByIdempotency(orgId, id, idempotencyId);
  }

  async get(orgId: string, id: string): Promise<Trigger> {
    const trigger = await this.triggers.findForOrg(orgId, id);
    if (!trigger) throw new AppError('not_found', 'No trigger with this id.');
    return trigger;
  }

  list(orgId: string, limit: number, cursor?: string): Promise<TriggerPage> {
    return this.triggers.listForOrg(orgId, limit, cursor);
  }

  async update(orgId: string, id: string, body: UpdateTriggerDto): Promise<Trigger> {
    const current = await this.get(orgId, id);
    const condition = body.condition ? toStoredCondition(body.condition) : parseCondition(current.condition);
    if (body.condition) await this.checkSource(orgId, condition);
    const schedule =
      body.schedule === undefined
        ? current.intervalS == null
          ? null
          : { interval_s: current.intervalS, catch_up_window_s: current.catchUpWindowS }
        : toStoredSchedule(body.schedule);
    if (!schedule && condition.source.kind === 'query') {
      throw AppError.validation([{ field: 'schedule', problem: 'is required for a query source' }]);
    }
    const enabled = body.enabled ?? current.enabled;
    const becomesScheduled =
      current.nextEvaluationAt === null && enabled && scheduledInterval(condition, schedule) !== null;
    const isRedefined = body.condition !== undefined || body.simulation !== undefined;
    const isRescheduled =
      enabled !== current.enabled || (schedule?.interval_s ?? null) !== (current.intervalS ?? null);
    const now = this.clock.now();
    const changes: TriggerChanges = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      enabled,
      condition: JSON.stringify(condition),
      intervalS: schedule?.interval_s ?? null,
      catchUpWindowS: schedule?.catch_up_window_s ?? 0,
      ...(body.cooldown_s !== undefined ? { cooldownS: body.cooldown_s } : {}),
      ...(body.keep_firing_s !== undefined ? { keepFiringS: body.keep_firing_s } : {}),
      ...(body.simulation !== undefined
        ? {
            simulation: JSON.stringify(storedSimulation(parseSimulation(body.simulation), false)),
          }
        : {}),
      ...(body.webhook_url !== undefined ? { webhookUrl: body.webhook_url } : {}),
      ...(body.execution_webhook_url !== undefined
        ? { executionWebhookUrl: body.execution_webhook_url }
        : {}),
      ...(body.auto_execute !== undefined ? { autoExecute: body.auto_execute } : {}),
      ...(body.execution_max_age_s !== undefined ? { executionMaxAgeS: body.execution_max_age_s } : {}),
      ...(body.plans !== undefined ? { plans: JSON.stringify(body.plans) } : {}),
      ...(isRedefined || isRescheduled
        ? {
            ...restartedState(enabled, scheduledInterval(condition, schedule), now),
            generation: current.generation + 1,
          }
        : {}),
      updatedAt: now,
    };
    const updated = await this.triggers.update(
      orgId,
      id,
      changes,
      becomesScheduled ? this.scheduledCap() : undefined,
    );
    if (updated === NO_SCHEDULED_ROOM) throw this.noScheduledRoom();
    if (!updated) throw new AppError('not_found', 'No trigger with this id.');
    this.evaluator.wake();
    return updated;
  }

  /**
   * Its own slot, never deduplicated against the schedule; for_s, the cooldown and the keep-firing window do not apply.
   */
  async fire(
    orgId: string,
    id: string,
    pushed: number | undefined,
    idempotencyId?: string,
  ): Promise<TriggerFire> {
    const trigger = await this.get(orgId, id);
    if (!trigger.enabled) throw new AppError('conflict', 'The trigger is disabled: enable it to fire it.');
    const reading = await this.readOrRefuse(trigger, pushed);
    const firedAt = this.clock.now();
    const computed: ComputedFire = reading.conditionMet
      ? await this.firing.compute(trigger, reading.value, firedAt, 'interactive')
      : {
          fire: { triggerId: id, orgId, firedAt, conditionMet: false, currentValue: reading.value },
          alsoWrite: async () => undefined,
        };
    const fire = await this.triggers.recordManualFire(
      orgId,
      id,
      { ...computed.fire, idempotencyId: idempotencyId ?? null },
      computed.alsoWrite,
    );
    if (!fire) throw new AppError('not_found', 'No trigger with this id.');
    if (fire.conditionMet) {
      this.evaluator.countManualFire(fire.executionStatus ?? 'none');
      this.firing.wakeOutbox();
    }
    return fire;
  }

  async evaluate(orgId: string, id: string, pushed: number | undefined): Promise<EvaluationResponse> {
    const trigger = await this.get(orgId, id);
    const condition = parseCondition(trigger.condition);
    if (pushed === undefined && condition.source.kind === 'push') throw currentValueRequired();
    const reading = await this.reader.read(trigger, pushed);
    if (reading.kind !== 'value') {
      return {
        reading: reading.kind,
        condition_met: null,
        current_value: null,
        would_fire: false,
        error: reading.kind === 'error' ? reading.message : null,
      };
    }
    const isScheduled = trigger.nextEvaluationAt != null;
    const wouldFire =
      trigger.enabled &&
      (isScheduled
        ? transition(
            {
              state: trigger.state,
              pendingSince: trigger.pendingSince ?? null,
              recoveringSince: trigger.recoveringSince ?? null,
              lastFiredAt: trigger.lastFiredAt ?? null,
              consecutiveErrors: trigger.consecutiveErrors,
            },
            { forS: condition.for_s, cooldownS: trigger.cooldownS, keepFiringS: trigger.keepFiringS },
            reading,
            this.clock.now(),
          ).shouldFire
        : reading.conditionMet);
    return {
      reading: 'value',
      condition_met: reading.conditionMet,
      current_value: reading.value,
      would_fire: wouldFire,
      error: null,
    };
  }

  /** Calibration counts only the roles the execution policy names, so the reporter's role is kept. */
  async reportOutcome(
    reporter: Principal,
    id: string,
    fireId: string,
    body: ReportOutcomeDto,
  ): Promise<TriggerFire> {
    const { orgId } = reporter;
    await this.get(orgId, id);
    const fire = await this.triggers.findFire(orgId, id, fireId);
    if (!fire) throw new AppError('not_found', 'No fire with this id for this trigger.');
    if (fire.realizedValue != null) throw outcomeAlreadyReported();
    if (!fire.prediction || !fire.recommendedAction) {
      throw new AppError(
        'conflict',
        'The fire ran no simulation (its condition did not hold): no prediction to compare.',
      );
    }
    const prediction = JSON.parse(fire.prediction) as Prediction;
    let judgement: Judgement | undefined;
    if (body.realized_variables) {
      if (!Array.isArray(prediction.variables)) {
        throw new AppError(
          'conflict',
          'The fire was recorded without its models: realized variables cannot be judged.',
        );
      }
      judgement = judgeOutcome(
        prediction,
        fire.recommendedAction,
        body.realized_variables,
        fire.currentValue,
      );
    }
    const outcome: OutcomeFields = {
      realizedValue: body.realized_value,
      realizedVariables: body.realized_variables ? JSON.stringify(body.realized_variables) : null,
      realizedActionValues: judgement
        ? JSON.stringify({
            action_values: judgement.actionValues,
            best_action: judgement.bestAction,
            recommended_was_best: judgement.recommendedWasBest,
          })
        : null,
      outcomeAt: this.clock.now(),
      reportedBy: reporter.userId ?? reporter.keyId ?? null,
      reportedByRole: reporter.role,
    };
    const policy = await this.policies.current(orgId);
    const recorded = await this.triggers.recordOutcome(orgId, fireId, outcome, (tx) =>
      this.audit.record(
        {
          event: 'outcome_reported',
          orgId,
          actor: actorOf(reporter),
          target: { type: 'trigger_fire', id: fireId },
          details: {
            trigger_id: id,
            role: reporter.role,
            realized_value: body.realized_value,
            counts_toward_calibration: (reporterRolesOf(policy) as string[]).includes(reporter.role),
            policy_snapshot_id: policy.id,
          },
        },
        tx,
      ),
    );
    if (!recorded) throw outcomeAlreadyReported();
    return { ...fire, ...outcome };
  }

  async calibration(orgId: string, id: string): Promise<CalibrationResponse> {
    await this.get(orgId, id);
    const { calibration, policy } = await this.firing.calibrationUnderPolicy(orgId, id);
    return toCalibrationResponse(id, calibration, policy);
  }

  async listFires(orgId: string, id: string, limit: number, cursor?: string): Promise<FirePage> {
    await this.get(orgId, id);
    return this.triggers.listFires(orgId, id, limit, cursor);
  }

  private async readOrRefuse(
    trigger: Trigger,
    pushed: number | undefined,
  ): Promise<{ value: number; conditionMet: boolean }> {
    if (pushed === undefined && parseCondition(trigger.condition).source.kind === 'push') {
      throw currentValueRequired();
    }
    const reading = await this.reader.read(trigger, pushed);
    if (reading.kind === 'no_data') throw new AppError('conflict', 'The query returned no value to compare.');
    if (reading.kind === 'error')
      throw new AppError('conflict', `The value could not be read: ${reading.message}`);
    return reading;
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.triggers.delete(orgId, id))) throw new AppError('not_found', 'No trigger with this id.');
  }

  private async checkSource(orgId: string, condition: StoredCondition): Promise<void> {
    const { source } = condition;
    if (source.kind !== 'query') return;
    let columns: readonly string[];
    try {
      const body = parseWire(QueryRequest, queryBodyOf(source));
      columns = (await this.queries.query({ orgId }, body)).columns.map((c) => c.name);
    } catch (error) {
      throw underQuery(toAppError(error));
    }
    if (!columns.includes(source.value.column)) {
      throw AppError.validation([
        {
          field: 'condition.source.value.column',
          problem: `is not a column of the query's result (${columns.join(', ').slice(0, 300)})`,
        },
      ]);
    }
  }
}

function outcomeAlreadyReported(): AppError {
  return new AppError('conflict', 'An outcome was already reported for this fire.');
}

function currentValueRequired(): AppError {
  return AppError.validation([{ field: 'current_value', problem: 'is required for a push source' }]);
}

function scheduledInterval(condition: StoredCondition, schedule: StoredSchedule | null): number | null {
  return condition.source.kind === 'query' ? (schedule?.interval_s ?? null) : null;
}

function restartedState(
  enabled: boolean,
  intervalS: number | null,
  now: Date,
): Pick<
  Trigger,
  'state' | 'pendingSince' | 'recoveringSince' | 'lastError' | 'consecutiveErrors' | 'nextEvaluationAt'
> {
  return {
    state: enabled ? 'inactive' : 'disabled',
    pendingSince: null,
    recoveringSince: null,
    lastError: null,
    consecutiveErrors: 0,
    nextEvaluationAt: enabled && intervalS !== null ? now : null,
  };
}
