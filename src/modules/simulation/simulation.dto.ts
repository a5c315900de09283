import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, Max, Min, ValidateNested } from 'class-validator';
import {
  contextOf,
  FiniteNumber,
  IfPresent,
  isPlainObject,
  MapOf,
  Nested,
  Problem,
  RawField,
  Refused,
  Required,
  ValidExpression,
  WholeProblem,
  toDto,
  toNestedDto,
  WithinMagnitude,
  withContext,
} from '../../common/validation';
import {
  ActionStatistics,
  ENGINE_MODES,
  EngineMode,
  EngineResult,
  Sensitivity,
} from '../engine/engine.types';
import {
  AdjustFlag,
  CorrelationDto,
  CorrelationResponse,
  EmpiricalVariableDto,
  ParamsVariableDto,
  variableFormOf,
} from './families.dto';
import {
  DATA_PLACEHOLDER,
  DATA_VARIABLE_PROBLEM,
  DataVariableDto,
  InputProvenanceResponse,
} from './data-inputs.dto';
import {
  ActionSpec,
  DEFAULT_RUNS,
  DistributionName,
  DISTRIBUTIONS,
  MAX_ACTION_NAME_LENGTH,
  MAX_ACTIONS,
  MAX_CORRELATED_VARIABLES,
  MAX_MAGNITUDE,
  MAX_MODEL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_RUNS,
  MAX_SEED,
  MAX_VARIABLES,
  Objective,
  OBJECTIVES,
  RangeSpec,
  SimulationRequest,
  VariableSpec,
} from './simulation-request';

/**
 * The `/v1/simulate` body of DESIGN.md §5 as DTOs, checked with the same rules as the engine so a bad request never
 * reaches it; every problem is listed in one 422.
 */

const MAGNITUDE_PROBLEM = 'must be between -1e150 and 1e150';
const RANGE_SHAPE = '{low, high, distribution?, mode?}';
const CORRELATION_PROBLEM = 'must be an object {a, b, rank}';
const RANGE_PROBLEM = `must be an object ${RANGE_SHAPE}`;
const SET_ENTRY_PROBLEM = `must be a number or an object ${RANGE_SHAPE}`;
const ACTION_PROBLEM = 'must be an object {name, model?, set?}';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export const isVariableName = (name: string): boolean =>
  IDENTIFIER.test(name) && name.length <= MAX_NAME_LENGTH;

const isActionName = (name: unknown): name is string =>
  typeof name === 'string' &&
  name.length > 0 &&
  name.length <= MAX_ACTION_NAME_LENGTH &&
  !CONTROL_CHARACTERS.test(name);

/** Low and high when both are usable numbers; the cross-field rules only apply then. */
function boundsOf(range: RangeDto): { low: number; high: number } | undefined {
  const usable = (v: unknown): v is number =>
    typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_MAGNITUDE;
  return usable(range.low) && usable(range.high) ? { low: range.low, high: range.high } : undefined;
}

function orderedBoundsOf(range: RangeDto): { low: number; high: number } | undefined {
  const bounds = boundsOf(range);
  return bounds && bounds.low <= bounds.high ? bounds : undefined;
}

/** A distribution {low, high, distribution?, mode?}; for normal and lognormal, low/high are p5/p95. */
export class RangeDto {
  @Required()
  @FiniteNumber()
  @WithinMagnitude(MAX_MAGNITUDE, MAGNITUDE_PROBLEM)
  @Problem<RangeDto>((_, range) =>
    range.distribution === 'lognormal' && !((orderedBoundsOf(range)?.low ?? 1) > 0)
      ? 'must be greater than 0 for a lognormal distribution'
      : undefined,
  )
  low!: number;

  @Required()
  @FiniteNumber()
  @WithinMagnitude(MAX_MAGNITUDE, MAGNITUDE_PROBLEM)
  @Problem<RangeDto>((_, range) => {
    const bounds = boundsOf(range);
    if (!bounds) return undefined;
    if (bounds.low > bounds.high) return 'must be greater than or equal to low';
    return Number.isFinite(bounds.high - bounds.low) ? undefined : 'the range high - low overflows a double';
  })
  high!: number;

  @IfPresent()
  @IsIn(DISTRIBUTIONS, { message: `must be one of ${DISTRIBUTIONS.join(', ')}` })
  distribution?: DistributionName;

  @IfPresent()
  @FiniteNumber()
  @Problem<RangeDto>((mode, range) => {
    const bounds = orderedBoundsOf(range);
    const bounded = range.distribution === 'triangular' || range.distribution === 'pert';
    return bounds && bounded && typeof mode === 'number' && (mode < bounds.low || mode > bounds.high)
      ? 'must lie within [low, high]'
      : undefined;
  })
  mode?: number;
}

/** A number given for a variable in an action's `set`: the variable is fixed at that value. */
@WholeProblem<FixedValue>((fixed) => {
  const value = fixed.value;
  if (!Number.isFinite(value)) return 'must be a finite number';
  return Math.abs(value) > MAX_MAGNITUDE ? MAGNITUDE_PROBLEM : undefined;
})
export class FixedValue {
  get value(): number {
    return contextOf<number>(this) ?? Number.NaN;
  }

  static of(value: number): FixedValue {
    return withContext(new FixedValue(), value);
  }
}

interface ActionContext {
  readonly variables: readonly string[];
  readonly earlierNames: readonly string[];
}

function toSetEntry(value: unknown, name: string, action: Record<string, unknown>): unknown {
  const variables = contextOf<ActionContext>(action)?.variables ?? [];
  if (!variables.includes(name)) return Refused.because(`unknown variable '${name}'`);
  if (typeof value === 'number') return FixedValue.of(value);
  return toNestedDto(value, toVariableDto, SET_ENTRY_PROBLEM);
}

type VariableDto = RangeDto | ParamsVariableDto | EmpiricalVariableDto;

/** A variable's object as the DTO of its form: a range, a family's parameters, or an empirical sample. */
function toVariableDto(raw: Record<string, unknown>): VariableDto {
  switch (variableFormOf(raw)) {
    case 'params':
      return toDto(ParamsVariableDto, raw);
    case 'empirical':
      return toDto(EmpiricalVariableDto, raw);
    case 'range':
      return toDto(RangeDto, raw);
  }
}

/** Each correlation with the scenario's variable names, which its rules check a and b against. */
function toCorrelations(value: unknown, scenario: Record<string, unknown>): unknown {
  if (!Array.isArray(value)) return value;
  const variables = variableNames(scenario.variables);
  return (value as unknown[]).map((item) =>
    toNestedDto(item, (raw) => withContext(toDto(CorrelationDto, raw), variables), CORRELATION_PROBLEM),
  );
}

export class ActionDto {
  @Required()
  @Problem<ActionDto>((name, action) => {
    if (!isActionName(name)) {
      return `must be a non-empty string of at most ${MAX_ACTION_NAME_LENGTH} characters without control characters`;
    }
    return contextOf<ActionContext>(action)?.earlierNames.includes(name)
      ? `duplicate action name '${name}'`
      : undefined;
  })
  name!: string;

  @IfPresent()
  @ValidExpression<ActionDto>(MAX_MODEL_LENGTH, (action) => contextOf<ActionContext>(action)?.variables ?? [])
  model?: string;

  @IfPresent()
  @Problem((set) =>
    set instanceof Map ? undefined : `must be an object mapping variable names to a number or ${RANGE_SHAPE}`,
  )
  @ValidateNested({ message: SET_ENTRY_PROBLEM })
  @MapOf(toSetEntry)
  @ApiPropertyOptional({
    description: 'Variables this action fixes (a number) or gives another range, by variable name.',
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'number' }, { $ref: getSchemaPath(RangeDto) }] },
  })
  set?: ReadonlyMap<string, VariableDto | FixedValue | Refused>;
}

function variableNames(variables: unknown): string[] {
  return isPlainObject(variables) ? Object.keys(variables).filter(isVariableName) : [];
}

/** Each action with what its rules need: the scenario's variables and the names of the actions before it. */
function toActions(value: unknown, scenario: Record<string, unknown>): unknown {
  if (!Array.isArray(value)) return value;
  const variables = variableNames(scenario.variables);
  const items: unknown[] = value;
  const toAction = (action: Record<string, unknown>, index: number): ActionDto => {
    const earlierNames = items
      .slice(0, index)
      .flatMap((earlier) => (isPlainObject(earlier) && isActionName(earlier.name) ? [earlier.name] : []));
    const context: ActionContext = { variables, earlierNames };
    return withContext(toDto(ActionDto, withContext({ ...action }, context)), context);
  };
  return items.map((item, index) => toNestedDto(item, (action) => toAction(action, index), ACTION_PROBLEM));
}

export class ScenarioDto {
  @Required()
  @IsIn(OBJECTIVES, { message: `must be one of ${OBJECTIVES.join(', ')}` })
  objective!: Objective;

  @IfPresent()
  @FiniteNumber()
  target?: number;

  @Required()
  @Problem((variables) => {
    if (!(variables instanceof Map)) return 'must be an object mapping variable names to {low, high, ...}';
    if (variables.size === 0) return 'must define at least one variable';
    return variables.size > MAX_VARIABLES ? `must define at most ${MAX_VARIABLES} variables` : undefined;
  })
  @ValidateNested({ message: RANGE_PROBLEM })
  @MapOf((value, name) => {
    if (!isVariableName(name)) {
      return Refused.because(
        `variable names must match [A-Za-z_][A-Za-z0-9_]* and be at most ${MAX_NAME_LENGTH} characters`,
      );
    }
    if (isPlainObject(value) && Object.hasOwn(value, 'from')) {
      return toNestedDto(value, (raw) => toDto(DataVariableDto, raw), DATA_VARIABLE_PROBLEM);
    }
    return toNestedDto(value, toVariableDto, RANGE_PROBLEM);
  })
  @ApiProperty({
    description:
      'The uncertain inputs by name ([A-Za-z_][A-Za-z0-9_]*): a range {low, high, ...}, a family by its ' +
      'parameters {distribution, params}, an empirical sample {distribution: "empirical", values}, or a column ' +
      'of a dataset {from, distribution}.',
    type: 'object',
    additionalProperties: {
      oneOf: [
        { $ref: getSchemaPath(RangeDto) },
        { $ref: getSchemaPath(ParamsVariableDto) },
        { $ref: getSchemaPath(EmpiricalVariableDto) },
        { $ref: getSchemaPath(DataVariableDto) },
      ],
    },
    minProperties: 1,
    example: {
      price: { low: 8, high: 12 },
      cost: { low: -9, high: -6, distribution: 'triangular', mode: -7 },
    },
  })
  variables!: ReadonlyMap<string, VariableDto | DataVariableDto | Refused>;

  @IfPresent()
  @IsBoolean({ message: 'must be true or false' })
  @ApiPropertyOptional({
    description:
      "Correlate the variables drawn from the same dataset and `where` by the Spearman rank correlation of their rows (a pair in `correlations` keeps the caller's value).",
  })
  correlations_from_data?: boolean;

  @IfPresent()
  @ValidExpression<ScenarioDto>(MAX_MODEL_LENGTH, (scenario) => {
    const variables: unknown = scenario.variables;
    if (!(variables instanceof Map)) return [];
    const entries = [...(variables as ReadonlyMap<string, unknown>)];
    return entries.filter(([, entry]) => !(entry instanceof Refused)).map(([name]) => name);
  })
  model?: string;

  @IfPresent()
  @Problem((actions) => {
    if (!Array.isArray(actions)) return 'must be an array of {name, model?, set?}';
    if (actions.length === 0) return 'must contain at least one action';
    return actions.length > MAX_ACTIONS ? `must contain at most ${MAX_ACTIONS} actions` : undefined;
  })
  @ValidateNested({ message: ACTION_PROBLEM })
  @RawField(toActions)
  @ApiPropertyOptional({ type: () => [ActionDto], description: 'The choices compared on the same draws.' })
  actions?: readonly ActionDto[];

  @IfPresent()
  @Problem((correlations) => {
    if (!Array.isArray(correlations)) return 'must be an array of {a, b, rank}';
    const named = new Set(correlations.flatMap((pair) => (isPlainObject(pair) ? [pair.a, pair.b] : [])));
    return named.size > MAX_CORRELATED_VARIABLES
      ? `may correlate at most ${MAX_CORRELATED_VARIABLES} distinct variables`
      : undefined;
  })
  @ValidateNested({ message: CORRELATION_PROBLEM })
  @RawField(toCorrelations)
  @ApiPropertyOptional({
    type: () => [CorrelationDto],
    description:
      'Spearman rank-correlation targets between variables, imposed by Iman–Conover (each marginal unchanged).',
  })
  correlations?: readonly CorrelationDto[];

  @IfPresent()
  @AdjustFlag()
  @ApiPropertyOptional({
    description:
      'Use the nearest valid correlation matrix instead of refusing one that is not positive semi-definite.',
  })
  adjust_correlations?: boolean;
}

export function seedProblem(seed: unknown): string | undefined {
  if (typeof seed === 'number') {
    if (Number.isSafeInteger(seed) && seed >= 0) return undefined;
    if (Number.isInteger(seed) && seed > Number.MAX_SAFE_INTEGER) {
      return 'is above 2^53 - 1 and cannot be read exactly from a JSON number: send it as a decimal string';
    }
  } else if (typeof seed === 'string' && /^\d{1,20}$/.test(seed) && BigInt(seed) <= MAX_SEED) {
    return undefined;
  }
  return 'must be an unsigned 64-bit integer (0 to 18446744073709551615)';
}

export class SimulateRequest {
  @IfPresent()
  @IsIn(['auto'], { message: 'must be "auto"' })
  mode?: 'auto';

  @IfPresent()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: `must be between 1 and ${MAX_RUNS}` })
  @Max(MAX_RUNS, { message: `must be between 1 and ${MAX_RUNS}` })
  runs?: number;

  /** A number while exact in JSON, else a decimal string (up to 2^64 - 1). */
  @IfPresent()
  @Problem(seedProblem)
  @ApiPropertyOptional({
    description: 'Makes the draws repeatable; echoed in the result.',
    oneOf: [
      { type: 'integer', minimum: 0 },
      { type: 'string', pattern: '^[0-9]{1,20}$' },
    ],
  })
  seed?: number | string;

  @IfPresent()
  @IsIn(['summary', 'full'], { message: 'must be "summary" or "full"' })
  detail?: 'summary' | 'full';

  @Required()
  @Problem((scenario) => (scenario instanceof ScenarioDto ? undefined : 'must be an object'))
  @Nested(() => ScenarioDto)
  scenario!: ScenarioDto;
}

function toVariableSpec(variable: VariableDto): VariableSpec {
  if (variable instanceof ParamsVariableDto) {
    return { distribution: variable.distribution, params: { ...variable.params } };
  }
  if (variable instanceof EmpiricalVariableDto) return { distribution: 'empirical', values: variable.values };
  return toRangeSpec(variable);
}

function toRangeSpec(range: RangeDto): RangeSpec {
  return {
    low: range.low,
    high: range.high,
    ...(range.distribution !== undefined ? { distribution: range.distribution } : {}),
    ...(range.mode !== undefined ? { mode: range.mode } : {}),
  };
}

function toActionSpec(action: ActionDto): ActionSpec {
  const set =
    action.set &&
    new Map(
      [...action.set].map(([name, entry]) => [
        name,
        entry instanceof FixedValue ? entry.value : toVariableSpec(entry as VariableDto),
      ]),
    );
  return {
    name: action.name,
    ...(action.model !== undefined ? { model: action.model } : {}),
    ...(set ? { set } : {}),
  };
}

export function toSimulationRequest(body: SimulateRequest): SimulationRequest {
  const { scenario } = body;
  return {
    runs: body.runs ?? DEFAULT_RUNS,
    ...(body.seed !== undefined ? { seed: BigInt(body.seed) } : {}),
    detail: body.detail ?? 'summary',
    scenario: {
      variables: new Map(
        [...scenario.variables].map(([name, variable]) => [
          name,
          variable instanceof DataVariableDto ? DATA_PLACEHOLDER : toVariableSpec(variable as VariableDto),
        ]),
      ),
      objective: scenario.objective,
      ...(scenario.model !== undefined ? { model: scenario.model } : {}),
      ...(scenario.actions !== undefined ? { actions: scenario.actions.map(toActionSpec) } : {}),
      ...(scenario.target !== undefined ? { target: scenario.target } : {}),
      ...(scenario.correlations !== undefined
        ? { correlations: scenario.correlations.map(({ a, b, rank }) => ({ a, b, rank })) }
        : {}),
      ...(scenario.adjust_correlations !== undefined
        ? { adjust_correlations: scenario.adjust_correlations }
        : {}),
    },
  };
}

export class ActionStatisticsResponse implements ActionStatistics {
  @ApiProperty({ example: 'proceed' })
  name!: string;
  @ApiProperty({ example: 3.01 })
  mean!: number;
  @ApiProperty({ example: 2.04 })
  std_dev!: number;
  @ApiProperty({ example: 0.0204 })
  std_error!: number;
  @ApiProperty({ example: -0.35 })
  p5!: number;
  @ApiProperty({ example: 3.02 })
  p50!: number;
  @ApiProperty({ example: 6.33 })
  p95!: number;
  @ApiProperty({ example: -3.9 })
  min!: number;
  @ApiProperty({ example: 9.8 })
  max!: number;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.93 })
  prob_positive!: number;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.93 })
  prob_best!: number;
  @ApiProperty({ minimum: 0, example: 0.04 })
  expected_loss!: number;
  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    description: 'P(value ≥ target), when the scenario sets one.',
  })
  prob_target?: number;
}

export class SensitivityResponse implements Sensitivity {
  @ApiProperty({ example: 'price' })
  variable!: string;
  @ApiProperty({ minimum: -1, maximum: 1, example: 0.87 })
  correlation!: number;
  @ApiPropertyOptional({ description: 'With detail "full": top-decile minus bottom-decile mean outcome.' })
  swing?: number;
}

/**
 * The `/v1/simulate` answer: the engine's result (DESIGN.md §5) with the run id and the path that computed it. A
 * description of the object toSimulationResponse already builds: nothing is copied to fit it.
 */
export class SimulationResponse implements EngineResult {
  @ApiProperty({ example: 'run_01hx3v9c2m4k' })
  run_id!: string;
  @ApiProperty({ enum: ENGINE_MODES.filter((mode) => mode !== 'unavailable'), example: 'pool' })
  engine_mode!: EngineMode;
  @ApiProperty({ example: '1.4.0' })
  engine_version!: string;
  @ApiProperty({ example: 10000 })
  runs!: number;
  @ApiProperty({
    description: 'The seed that reproduces the run: a number while exact in JSON, else a decimal string.',
    oneOf: [
      { type: 'integer', minimum: 0 },
      { type: 'string', pattern: '^[0-9]{1,20}$' },
    ],
    example: 42,
  })
  seed!: number | string;
  @ApiProperty({ enum: OBJECTIVES })
  objective!: string;
  @ApiProperty({ example: 'proceed' })
  recommended_action!: string;
  @ApiProperty({ example: 3.01 })
  expected_value!: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'P(the recommended action is best).', example: 0.93 })
  confidence!: number;
  @ApiProperty({ minimum: 0, description: 'Expected value of perfect information.', example: 0.04 })
  evpi!: number;
  @ApiProperty({
    type: [ActionStatisticsResponse],
    description: 'In the order given; default proceed, do_nothing.',
  })
  actions!: readonly ActionStatisticsResponse[];
  @ApiProperty({ type: [SensitivityResponse], description: 'By magnitude of correlation, largest first.' })
  sensitivity!: readonly SensitivityResponse[];
  @ApiPropertyOptional({
    type: [CorrelationResponse],
    description: 'With scenario.correlations: each target and the Spearman rank correlation of the draws.',
  })
  correlations?: readonly CorrelationResponse[];
  @ApiPropertyOptional({
    description: 'With scenario.correlations: whether the nearest valid matrix was used.',
  })
  correlations_adjusted?: boolean;
  @ApiProperty({ example: 12.5 })
  compute_ms!: number;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(InputProvenanceResponse) },
    description: 'The variables drawn from datasets, by name, with where their values came from.',
  })
  inputs?: Readonly<Record<string, InputProvenanceResponse>>;
}

export function toSimulationResponse(
  runId: string,
  mode: EngineMode,
  result: EngineResult,
  seed: number | string,
): SimulationResponse {
  return { run_id: runId, engine_mode: mode, ...result, seed };
}
