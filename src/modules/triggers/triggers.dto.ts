import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import {
  FiniteNumber,
  HttpUrl,
  IfPresent,
  isPlainObject,
  Nested,
  Nullable,
  Problem,
  Required,
  Rules,
} from '../../common/validation';
import { SimulateRequest } from '../simulation/simulation.dto';
import { ROLES, Role } from '../../common/auth/principal';
import {
  ExecutionPolicySnapshot,
  OUTCOME_REPORTER_ROLES,
  OutcomeReporterRole,
  reporterRolesOf,
} from './execution-policy.entity';
import { Trigger, TriggerFire } from './trigger.entity';
import {
  Calibration,
  CALIBRATION_STATUSES,
  CalibrationStatus,
  COVERAGE_TARGET,
  Prediction,
} from './trigger-calibration';
import {
  Aggregate,
  AGGREGATES,
  EXECUTION_STATUSES,
  ExecutionStatus,
  MAX_INTERVAL_S,
  MAX_WINDOW_S,
  MIN_INTERVAL_S,
  Operator,
  OPERATORS,
  SOURCE_KINDS,
  SourceKind,
  TRIGGER_STATES,
  TriggerState,
} from './triggers.types';

const MAX_STEPS = 50;
const MAX_STEP_NAME_LENGTH = 100;

const Seconds = (min: number, max: number): PropertyDecorator =>
  Rules(
    IsInt({ message: 'must be an integer number of seconds' }),
    Min(min, { message: `must be between ${min} and ${max}` }),
    Max(max, { message: `must be between ${min} and ${max}` }),
  );

const QuerySourceField = (check: (value: unknown) => string | undefined): PropertyDecorator =>
  Rules(
    ValidateIf((source: ConditionSourceDto, value) => value !== undefined || source.kind === 'query'),
    Problem<ConditionSourceDto>((value, source) => {
      if (source.kind === 'push')
        return value === undefined ? undefined : 'is only allowed for a query source';
      if (source.kind !== 'query') return undefined;
      return value === undefined ? 'is required for a query source' : check(value);
    }),
  );

export class ValueSelectorDto {
  @Required()
  @IsString({ message: 'must be a column name' })
  @Length(1, 128)
  column!: string;

  @IfPresent()
  @IsIn(AGGREGATES, { message: `must be one of ${AGGREGATES.join(', ')}` })
  aggregate?: Aggregate;
}

export class ConditionSourceDto {
  @Required()
  @IsIn(SOURCE_KINDS, { message: `must be one of ${SOURCE_KINDS.join(', ')}` })
  kind!: SourceKind;

  @QuerySourceField((id) =>
    typeof id === 'string' && id.length > 0 && id.length <= 128 ? undefined : 'must be a dataset id',
  )
  @ApiPropertyOptional({ type: 'string', description: 'The dataset to query; `query` sources only.' })
  dataset_id?: string;

  @QuerySourceField((query) =>
    isPlainObject(query) ? undefined : 'must be a POST /v1/query body (an object) without dataset_id',
  )
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'A `POST /v1/query` body without `dataset_id`, checked by running it when the trigger is saved.',
    example: { select: ['stock'], limit: 1 },
  })
  query?: Record<string, unknown>;

  @QuerySourceField((value) =>
    value instanceof ValueSelectorDto ? undefined : 'must be an object {column, aggregate?}',
  )
  @Nested(() => ValueSelectorDto)
  value?: ValueSelectorDto;
}

export class ConditionDto {
  @Required()
  @Problem((source) => (source instanceof ConditionSourceDto ? undefined : 'must be an object {kind, ...}'))
  @Nested(() => ConditionSourceDto)
  source!: ConditionSourceDto;

  @Required()
  @IsIn(OPERATORS, { message: `must be one of ${OPERATORS.join(', ')}` })
  operator!: Operator;

  @Required()
  @FiniteNumber()
  threshold!: number;

  /** Pending period: the condition must hold this long (scheduled evaluation) before the trigger fires. */
  @IfPresent()
  @Seconds(0, MAX_WINDOW_S)
  for_s?: number;
}

export class ScheduleDto {
  @Required()
  @Seconds(MIN_INTERVAL_S, MAX_INTERVAL_S)
  interval_s!: number;

  /** After downtime, the latest missed slot is still evaluated when it is at most this old (default 0: never). */
  @IfPresent()
  @Seconds(0, MAX_WINDOW_S)
  catch_up_window_s?: number;
}

export interface PlanStep {
  readonly name: string;
  readonly params?: Record<string, unknown>;
}

function stepProblem(step: unknown): string | undefined {
  if (!isPlainObject(step)) return 'must be an object {name, params?}';
  const extra = Object.keys(step).filter((key) => key !== 'name' && key !== 'params');
  if (extra.length > 0) return `unknown field ${extra[0].slice(0, 50)}; allowed fields are name, params`;
  if (typeof step.name !== 'string' || step.name.length === 0 || step.name.length > MAX_STEP_NAME_LENGTH)
    return `name must be a string of 1 to ${MAX_STEP_NAME_LENGTH} characters`;
  return step.params === undefined || isPlainObject(step.params) ? undefined : 'params must be an object';
}

function plansProblem(plans: unknown): string | undefined {
  if (!isPlainObject(plans)) return 'must be an object mapping action names to arrays of steps';
  for (const [action, steps] of Object.entries(plans)) {
    const where = `plan '${action.slice(0, 100)}'`;
    if (!Array.isArray(steps) || steps.length > MAX_STEPS)
      return `${where} must be an array of at most ${MAX_STEPS} steps {name, params?}`;
    const problems = steps.map(stepProblem);
    const index = problems.findIndex((p) => p !== undefined);
    if (index >= 0) return `${where}, step ${index}: ${problems[index]}`;
  }
  return undefined;
}

const PLANS_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  description:
    'The steps of `decision.execute` for each action the simulation may recommend, by action name.',
  additionalProperties: {
    type: 'array',
    maxItems: MAX_STEPS,
    items: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: MAX_STEP_NAME_LENGTH },
        params: { type: 'object', additionalProperties: true },
      },
    },
  },
  example: { reorder: [{ name: 'create_purchase_order', params: { quantity: 500 } }] },
};

const TriggerName = (): PropertyDecorator =>
  Rules(
    IsString({ message: 'must be a string' }),
    Length(1, 200, { message: 'must be 1 to 200 characters' }),
  );
const Flag = (): PropertyDecorator => IsBoolean({ message: 'must be true or false' });
const SimulationBody = (): PropertyDecorator =>
  Rules(
    Problem((simulation) =>
      simulation instanceof SimulateRequest ? undefined : 'must be a POST /v1/simulate body (an object)',
    ),
    Nested(() => SimulateRequest),
  );
const ConditionBody = (): PropertyDecorator =>
  Rules(
    Problem((condition) =>
      condition instanceof ConditionDto
        ? undefined
        : 'must be an object {source, operator, threshold, for_s?}',
    ),
    Nested(() => ConditionDto),
  );
const ScheduleBody = (): PropertyDecorator =>
  Rules(
    Problem((schedule) => (schedule instanceof ScheduleDto ? undefined : 'must be an object {interval_s}')),
    Nested(() => ScheduleDto),
  );

const isQuerySource = (trigger: CreateTriggerDto): boolean =>
  trigger.condition instanceof ConditionDto &&
  trigger.condition.source instanceof ConditionSourceDto &&
  trigger.condition.source.kind === 'query';

/** The wire decorators' metadata is read through the prototype chain, so create and update check these the same way. */
abstract class TriggerOptionsDto {
  @IfPresent()
  @Flag()
  enabled?: boolean;

  /** Least time between two fires; while the condition stays true, a trigger fires again after it (0: once). */
  @IfPresent()
  @Seconds(0, MAX_WINDOW_S)
  cooldown_s?: number;

  /** How long the trigger stays firing (state `recovering`) after the condition stops holding. */
  @IfPresent()
  @Seconds(0, MAX_WINDOW_S)
  keep_firing_s?: number;

  @IfPresent()
  @Nullable()
  @HttpUrl()
  webhook_url?: string | null;

  @IfPresent()
  @Nullable()
  @HttpUrl()
  execution_webhook_url?: string | null;

  @IfPresent()
  @Flag()
  auto_execute?: boolean;

  @IfPresent()
  @Seconds(1, MAX_WINDOW_S)
  execution_max_age_s?: number;

  @IfPresent()
  @Problem(plansProblem)
  @ApiPropertyOptional(PLANS_SCHEMA)
  plans?: Record<string, PlanStep[]>;
}

export class CreateTriggerDto extends TriggerOptionsDto {
  @Required()
  @TriggerName()
  name!: string;

  @Required()
  @ConditionBody()
  condition!: ConditionDto;

  /** Required for a `query` source; accepted and unused for a `push` source. */
  @ValidateIf((trigger: CreateTriggerDto, schedule) => schedule !== undefined || isQuerySource(trigger))
  @Problem<CreateTriggerDto>((schedule) =>
    schedule === undefined ? 'is required for a query source' : undefined,
  )
  @ScheduleBody()
  schedule?: ScheduleDto;

  @Required()
  @SimulationBody()
  simulation!: SimulateRequest;
}

export class UpdateTriggerDto extends TriggerOptionsDto {
  @IfPresent()
  @TriggerName()
  name?: string;

  @IfPresent()
  @ConditionBody()
  condition?: ConditionDto;

  @IfPresent()
  @Nullable()
  @ScheduleBody()
  schedule?: ScheduleDto | null;

  @IfPresent()
  @SimulationBody()
  simulation?: SimulateRequest;
}

export class TriggerListQuery extends CursorPageQuery {}

export class TriggerResponse {
  @ApiProperty({ example: 'trg_0mh3k2l1a09f3c2b7d4e5f6a7b' })
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty()
  enabled!: boolean;
  @ApiProperty({ type: () => ConditionDto })
  condition!: unknown;
  @ApiProperty({ type: () => ScheduleDto, nullable: true })
  schedule!: unknown;
  @ApiProperty()
  cooldown_s!: number;
  @ApiProperty()
  keep_firing_s!: number;
  @ApiProperty({ type: () => SimulateRequest, description: 'As it will run (defaults filled in).' })
  simulation!: unknown;
  @ApiProperty({ type: 'string', nullable: true })
  webhook_url!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  execution_webhook_url!: string | null;
  @ApiProperty()
  auto_execute!: boolean;
  @ApiProperty()
  execution_max_age_s!: number;
  @ApiProperty(PLANS_SCHEMA)
  plans!: Record<string, PlanStep[]>;
  @ApiProperty({ enum: TRIGGER_STATES })
  state!: TriggerState;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  pending_since!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_evaluated_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  next_evaluation_at!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  last_fire_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why the last evaluation failed, if it did.' })
  last_error!: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class TriggerListResponse {
  @ApiProperty({ type: [TriggerResponse] })
  triggers!: TriggerResponse[];
  @ApiProperty({ type: 'string', nullable: true })
  next_cursor!: string | null;
}

export class DeletedTriggerResponse {
  @ApiProperty()
  id!: string;
  @ApiProperty({ enum: [true] })
  deleted!: true;
}

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export function toTriggerResponse(trigger: Trigger): TriggerResponse {
  return {
    id: trigger.id,
    name: trigger.name,
    enabled: trigger.enabled,
    condition: JSON.parse(trigger.condition) as unknown,
    schedule:
      trigger.intervalS == null
        ? null
        : { interval_s: trigger.intervalS, catch_up_window_s: trigger.catchUpWindowS },
    cooldown_s: trigger.cooldownS,
    keep_firing_s: trigger.keepFiringS,
    simulation: JSON.parse(trigger.simulation) as unknown,
    webhook_url: trigger.webhookUrl ?? null,
    execution_webhook_url: trigger.executionWebhookUrl ?? null,
    auto_execute: trigger.autoExecute,
    execution_max_age_s: trigger.executionMaxAgeS,
    plans: JSON.parse(trigger.plans) as Record<string, PlanStep[]>,
    state: trigger.state,
    pending_since: iso(trigger.pendingSince),
    last_evaluated_at: iso(trigger.lastEvaluatedAt),
    next_evaluation_at: iso(trigger.nextEvaluationAt),
    last_fire_id: trigger.lastFireId ?? null,
    last_error: trigger.lastError ?? null,
    created_at: trigger.createdAt.toISOString(),
    updated_at: trigger.updatedAt.toISOString(),
  };
}

export class FireTriggerDto {
  @IfPresent()
  @FiniteNumber()
  current_value?: number;
}

export class FireListQuery extends CursorPageQuery {}

export class ReporterResponse {
  @ApiProperty({ description: 'The user or API key that reported the outcome.' })
  id!: string;
  @ApiProperty({ enum: ROLES, description: 'Its role when it reported.' })
  role!: Role;
}

export class FireResponse {
  @ApiProperty({ example: 'fire_0mh3k2l1a09f3c2b7d4e5f6a7b' })
  fire_id!: string;
  @ApiProperty()
  trigger_id!: string;
  @ApiProperty({ description: 'The scheduled slot (ISO time) or `manual:<fire_id>` for a fire call.' })
  slot!: string;
  @ApiProperty({ format: 'date-time' })
  fired_at!: string;
  @ApiProperty()
  condition_met!: boolean;
  @ApiProperty()
  current_value!: number;
  @ApiProperty({ type: 'string', nullable: true })
  run_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true })
  recommended_action!: string | null;
  @ApiProperty({ type: 'number', nullable: true })
  expected_value!: number | null;
  @ApiProperty({ type: 'number', nullable: true })
  confidence!: number | null;
  @ApiProperty({ enum: EXECUTION_STATUSES, nullable: true })
  execution_status!: ExecutionStatus | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The execution policy snapshot the fire was decided under; null when it did not simulate.',
  })
  policy_snapshot_id!: string | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'The outcome reported for the fire, if any.' })
  realized_value!: number | null;
  @ApiProperty({
    type: () => ReporterResponse,
    nullable: true,
    description:
      'Who reported the outcome; null before a report (or for one made before reporters were kept).',
  })
  reported_by!: ReporterResponse | null;
}

export class FireListResponse {
  @ApiProperty({ type: [FireResponse] })
  fires!: FireResponse[];
  @ApiProperty({ type: 'string', nullable: true })
  next_cursor!: string | null;
}

export class EvaluationResponse {
  @ApiProperty({ enum: ['value', 'no_data', 'error'] })
  reading!: 'value' | 'no_data' | 'error';
  @ApiProperty({ type: 'boolean', nullable: true })
  condition_met!: boolean | null;
  @ApiProperty({ type: 'number', nullable: true })
  current_value!: number | null;
  @ApiProperty({
    description:
      'Whether the scheduled evaluation would fire now (a fire call: whether the condition holds on an enabled trigger).',
  })
  would_fire!: boolean;
  @ApiProperty({ type: 'string', nullable: true })
  error!: string | null;
}

export function toFireResponse(fire: TriggerFire): FireResponse {
  return {
    fire_id: fire.id,
    trigger_id: fire.triggerId,
    slot: fire.slot,
    fired_at: fire.firedAt.toISOString(),
    condition_met: fire.conditionMet,
    current_value: fire.currentValue,
    run_id: fire.runId ?? null,
    recommended_action: fire.recommendedAction ?? null,
    expected_value: fire.expectedValue ?? null,
    confidence: fire.confidence ?? null,
    execution_status: fire.executionStatus ?? null,
    policy_snapshot_id: fire.policySnapshotId ?? null,
    realized_value: fire.realizedValue ?? null,
    reported_by: reporterOf(fire),
  };
}

const MAX_REALIZED_VARIABLES = 256;

function realizedVariablesProblem(variables: unknown): string | undefined {
  if (!isPlainObject(variables)) return 'must be an object mapping variable names to numbers';
  const entries = Object.entries(variables);
  if (entries.length > MAX_REALIZED_VARIABLES) return `must name at most ${MAX_REALIZED_VARIABLES} variables`;
  const bad = entries.find(([, value]) => typeof value !== 'number' || !Number.isFinite(value));
  return bad ? `${bad[0].slice(0, 64)} must be a finite number` : undefined;
}

export class ReportOutcomeDto {
  @Required()
  @FiniteNumber()
  realized_value!: number;

  @IfPresent()
  @Problem(realizedVariablesProblem)
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number' },
    description:
      "The variables' realized values, so every action's model is re-evaluated; `current_value` defaults to the fire's.",
    example: { demand: 104 },
  })
  realized_variables?: Record<string, number>;
}

export class PredictedBandResponse {
  @ApiProperty()
  mean!: number;
  @ApiProperty()
  std_dev!: number;
  @ApiProperty()
  p5!: number;
  @ApiProperty()
  p95!: number;
}

export class OutcomeResponse {
  @ApiProperty()
  fire_id!: string;
  @ApiProperty()
  trigger_id!: string;
  @ApiProperty()
  realized_value!: number;
  @ApiProperty({ format: 'date-time' })
  reported_at!: string;
  @ApiProperty({ type: () => ReporterResponse, nullable: true, description: 'Who reported the outcome.' })
  reported_by!: ReporterResponse | null;
  @ApiProperty()
  recommended_action!: string;
  @ApiProperty({
    type: () => PredictedBandResponse,
    description: "The recommended action's prediction at fire time.",
  })
  predicted!: PredictedBandResponse;
  @ApiProperty({
    description: 'Whether the realized value fell inside the predicted 5th–95th percentile band.',
  })
  inside_band!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, nullable: true })
  realized_variables!: Record<string, number> | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    nullable: true,
    description: "Every action's model evaluated on the realized variables; null without them.",
  })
  action_values!: Record<string, number> | null;
  @ApiProperty({ type: 'string', nullable: true })
  best_action!: string | null;
  @ApiProperty({
    type: 'boolean',
    nullable: true,
    description: 'No action did strictly better than the recommended one.',
  })
  recommended_was_best!: boolean | null;
}

export class CalibrationResponse {
  @ApiProperty()
  trigger_id!: string;
  @ApiProperty({ enum: CALIBRATION_STATUSES })
  status!: CalibrationStatus;
  @ApiProperty({
    type: 'integer',
    description: "Every outcome that counts: reported by one of the policy's `outcome_reporter_roles`.",
  })
  outcomes!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Outcomes reported by other roles (or before reporters were kept): never counted.',
  })
  uncounted_outcomes!: number;
  @ApiProperty({
    enum: OUTCOME_REPORTER_ROLES,
    isArray: true,
    description: 'The roles whose outcome reports count, as the current execution policy names them.',
  })
  outcome_reporter_roles!: OutcomeReporterRole[];
  @ApiProperty({ type: 'integer', description: 'The most recent outcomes the status is judged on.' })
  window!: number;
  @ApiProperty({ type: 'integer' })
  inside_band!: number;
  @ApiProperty({ type: 'integer' })
  below_band!: number;
  @ApiProperty({ type: 'integer' })
  above_band!: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    description: 'inside_band / window; null before any outcome.',
  })
  coverage!: number | null;
  @ApiProperty({ example: COVERAGE_TARGET })
  coverage_target!: number;
  @ApiProperty()
  coverage_tolerance!: number;
  @ApiProperty({ type: 'integer' })
  min_outcomes!: number;
  @ApiProperty({ type: 'integer', description: 'Outcomes of the window reported with realized variables.' })
  judged!: number;
  @ApiProperty({ type: 'integer', description: 'Of those, how many found the recommended action best.' })
  recommended_best!: number;
  @ApiProperty({ description: 'The execution policy snapshot whose min_outcomes was applied.' })
  policy_snapshot_id!: string;
}

export function toOutcomeResponse(fire: TriggerFire): OutcomeResponse {
  const prediction = JSON.parse(fire.prediction ?? '{"actions":[]}') as Prediction;
  const action = prediction.actions.find((a) => a.name === fire.recommendedAction);
  const realized = fire.realizedValue ?? NaN;
  const judged = fire.realizedActionValues
    ? (JSON.parse(fire.realizedActionValues) as {
        action_values: Record<string, number>;
        best_action: string;
        recommended_was_best: boolean;
      })
    : null;
  return {
    fire_id: fire.id,
    trigger_id: fire.triggerId,
    realized_value: realized,
    reported_at: iso(fire.outcomeAt) ?? '',
    reported_by: reporterOf(fire),
    recommended_action: fire.recommendedAction ?? '',
    predicted: {
      mean: action?.mean ?? NaN,
      std_dev: action?.std_dev ?? NaN,
      p5: action?.p5 ?? NaN,
      p95: action?.p95 ?? NaN,
    },
    inside_band: action !== undefined && realized >= action.p5 && realized <= action.p95,
    realized_variables: fire.realizedVariables
      ? (JSON.parse(fire.realizedVariables) as Record<string, number>)
      : null,
    action_values: judged?.action_values ?? null,
    best_action: judged?.best_action ?? null,
    recommended_was_best: judged?.recommended_was_best ?? null,
  };
}

export function toCalibrationResponse(
  triggerId: string,
  calibration: Calibration,
  policy: ExecutionPolicySnapshot,
): CalibrationResponse {
  return {
    trigger_id: triggerId,
    status: calibration.status,
    outcomes: calibration.outcomes,
    uncounted_outcomes: calibration.uncounted,
    outcome_reporter_roles: reporterRolesOf(policy),
    window: calibration.window,
    inside_band: calibration.insideBand,
    below_band: calibration.belowBand,
    above_band: calibration.aboveBand,
    coverage: calibration.coverage,
    coverage_target: COVERAGE_TARGET,
    coverage_tolerance: calibration.tolerance,
    min_outcomes: calibration.minOutcomes,
    judged: calibration.judged,
    recommended_best: calibration.recommendedBest,
    policy_snapshot_id: policy.id,
  };
}

function reporterOf(fire: TriggerFire): ReporterResponse | null {
  return fire.reportedBy && fire.reportedByRole
    ? { id: fire.reportedBy, role: fire.reportedByRole as Role }
    : null;
}
