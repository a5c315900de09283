import { AppError, ErrorDetail } from '../../common/errors';
import { ExpressionError, parseExpression } from '../../common/expression/expression';

/**
 * The `/v1/simulate` request of DESIGN.md §5, checked with the same rules as the engine so a bad request never
 * reaches it. Problems are collected (not thrown one by one) so the 422 lists all of them.
 */

export const DISTRIBUTIONS = ['uniform', 'triangular', 'pert', 'normal', 'lognormal'] as const;
export type DistributionName = (typeof DISTRIBUTIONS)[number];
export const OBJECTIVES = ['maximize_net_value', 'maximize_value', 'minimize_cost'] as const;
export type Objective = (typeof OBJECTIVES)[number];

export const MAX_RUNS = 10_000_000;
export const DEFAULT_RUNS = 10_000;
export const MAX_VARIABLES = 256;
export const MAX_ACTIONS = 64;
export const MAX_NAME_LENGTH = 64;
export const MAX_ACTION_NAME_LENGTH = 128;
export const MAX_MODEL_LENGTH = 10_000;
/**
 * The largest |low|, |high| or fixed value, as in the engine: it keeps the sums of squares over MAX_RUNS draws
 * finite ((2 * 1e150)^2 * 1e7 = 4e307 < 1.8e308), so a plain range never overflows the statistics.
 */
export const MAX_MAGNITUDE = 1e150;
const MAGNITUDE_PROBLEM = 'must be between -1e150 and 1e150';
const MAX_SEED = 18446744073709551615n;

export interface RangeSpec {
  readonly low: number;
  readonly high: number;
  readonly distribution?: DistributionName;
  readonly mode?: number;
}

export interface ActionSpec {
  readonly name: string;
  readonly model?: string;
  readonly set?: ReadonlyMap<string, number | RangeSpec>;
}

export interface Scenario {
  /** In declaration order: the order decides which random stream each variable gets. */
  readonly variables: ReadonlyMap<string, RangeSpec>;
  readonly objective: Objective;
  readonly model?: string;
  readonly actions?: readonly ActionSpec[];
  readonly target?: number;
}

export interface SimulationRequest {
  readonly runs: number;
  /** Absent: the daemon picks one, so every run is recorded with the seed that reproduces it. */
  readonly seed?: bigint;
  readonly detail: 'summary' | 'full';
  readonly scenario: Scenario;
}

type Json = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class Problems {
  readonly list: ErrorDetail[] = [];

  add(field: string, problem: string): void {
    this.list.push({ field: field === '' ? 'body' : field, problem });
  }

  unknownKeys(object: Json, prefix: string, allowed: readonly string[]): void {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key))
        this.add(join(prefix, key), `unknown field; allowed fields are ${allowed.join(', ')}`);
    }
  }

  get count(): number {
    return this.list.length;
  }
}

const join = (prefix: string, key: string): string => (prefix === '' ? key : `${prefix}.${key}`);

/** Validates and normalises a `/v1/simulate` body; throws AppError validation_failed listing every problem. */
export function validateSimulationRequest(body: unknown): SimulationRequest {
  const problems = new Problems();
  const request = readRequest(body, problems);
  if (problems.count > 0 || !request) throw AppError.validation(problems.list);
  return request;
}

function readRequest(body: unknown, problems: Problems): SimulationRequest | undefined {
  if (!isObject(body)) {
    problems.add('body', 'the request body must be a JSON object');
    return undefined;
  }
  problems.unknownKeys(body, '', ['mode', 'runs', 'seed', 'detail', 'scenario']);
  if (body.mode !== undefined && body.mode !== 'auto') problems.add('mode', 'must be "auto"');
  const runs = readRuns(body.runs, problems);
  const seed = readSeed(body.seed, problems);
  let detail: 'summary' | 'full' = 'summary';
  if (body.detail !== undefined) {
    if (body.detail === 'summary' || body.detail === 'full') detail = body.detail;
    else problems.add('detail', 'must be "summary" or "full"');
  }
  const scenario = readScenario(body.scenario, problems);
  if (!scenario) return undefined;
  return { runs, ...(seed !== undefined ? { seed } : {}), detail, scenario };
}

function readRuns(value: unknown, problems: Problems): number {
  if (value === undefined) return DEFAULT_RUNS;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    problems.add('runs', 'must be an integer');
  } else if (value < 1 || value > MAX_RUNS) {
    problems.add('runs', `must be between 1 and ${MAX_RUNS}`);
  }
  return typeof value === 'number' ? value : DEFAULT_RUNS;
}

function readSeed(value: unknown, problems: Problems): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (Number.isInteger(value) && value > Number.MAX_SAFE_INTEGER) {
      problems.add(
        'seed',
        'is above 2^53 - 1 and cannot be read exactly from a JSON number: send it as a decimal string',
      );
      return undefined;
    }
  } else if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    const seed = BigInt(value);
    if (seed <= MAX_SEED) return seed;
  }
  problems.add('seed', 'must be an unsigned 64-bit integer (0 to 18446744073709551615)');
  return undefined;
}

function readScenario(value: unknown, problems: Problems): Scenario | undefined {
  if (value === undefined) {
    problems.add('scenario', 'is required');
    return undefined;
  }
  if (!isObject(value)) {
    problems.add('scenario', 'must be an object');
    return undefined;
  }
  problems.unknownKeys(value, 'scenario', ['variables', 'objective', 'model', 'actions', 'target']);

  let objective: Objective | undefined;
  if (value.objective === undefined) problems.add('scenario.objective', 'is required');
  else if ((OBJECTIVES as readonly unknown[]).includes(value.objective))
    objective = value.objective as Objective;
  else problems.add('scenario.objective', `must be one of ${OBJECTIVES.join(', ')}`);

  let target: number | undefined;
  if (value.target !== undefined) target = readFinite(value.target, 'scenario.target', problems);

  const variables = readVariables(value.variables, problems);
  const known = (name: string): boolean => variables.has(name);

  let model: string | undefined;
  if (value.model !== undefined) model = readModel(value.model, 'scenario.model', known, problems);

  let actions: ActionSpec[] | undefined;
  if (value.actions !== undefined) actions = readActions(value.actions, variables, problems);

  if (!objective) return undefined;
  return {
    variables,
    objective,
    ...(model !== undefined ? { model } : {}),
    ...(actions !== undefined ? { actions } : {}),
    ...(target !== undefined ? { target } : {}),
  };
}

function readVariables(value: unknown, problems: Problems): Map<string, RangeSpec> {
  const variables = new Map<string, RangeSpec>();
  const field = 'scenario.variables';
  if (value === undefined) {
    problems.add(field, 'is required');
    return variables;
  }
  if (!isObject(value)) {
    problems.add(field, 'must be an object mapping variable names to {low, high, ...}');
    return variables;
  }
  const names = Object.keys(value);
  if (names.length === 0) {
    problems.add(field, 'must define at least one variable');
    return variables;
  }
  if (names.length > MAX_VARIABLES) {
    problems.add(field, `must define at most ${MAX_VARIABLES} variables`);
    return variables;
  }
  for (const name of names) {
    const variableField = `${field}.${name}`;
    if (!IDENTIFIER.test(name) || name.length > MAX_NAME_LENGTH) {
      problems.add(
        variableField,
        `variable names must match [A-Za-z_][A-Za-z0-9_]* and be at most ${MAX_NAME_LENGTH} characters`,
      );
      continue;
    }
    const range = readRange(value[name], variableField, problems);
    // Registered even when invalid, so a model using it reports the range problem, not an unknown name.
    variables.set(name, range ?? { low: 0, high: 0 });
  }
  return variables;
}

/** A distribution spec {low, high, distribution?, mode?}; for normal and lognormal, low/high are p5/p95. */
function readRange(value: unknown, field: string, problems: Problems): RangeSpec | undefined {
  if (!isObject(value)) {
    problems.add(field, 'must be an object {low, high, distribution?, mode?}');
    return undefined;
  }
  const before = problems.count;
  problems.unknownKeys(value, field, ['low', 'high', 'distribution', 'mode']);
  const low = readRequiredNumber(value.low, `${field}.low`, problems);
  const high = readRequiredNumber(value.high, `${field}.high`, problems);
  let mode: number | undefined;
  if (value.mode !== undefined) mode = readRequiredNumber(value.mode, `${field}.mode`, problems, true);
  let distribution: DistributionName | undefined;
  if (value.distribution !== undefined) {
    if ((DISTRIBUTIONS as readonly unknown[]).includes(value.distribution)) {
      distribution = value.distribution as DistributionName;
    } else {
      problems.add(`${field}.distribution`, `must be one of ${DISTRIBUTIONS.join(', ')}`);
    }
  }
  let inBounds = true;
  for (const [name, bound] of [
    ['low', low],
    ['high', high],
  ] as const) {
    if (bound !== undefined && Math.abs(bound) > MAX_MAGNITUDE) {
      problems.add(`${field}.${name}`, MAGNITUDE_PROBLEM);
      inBounds = false;
    }
  }
  if (low !== undefined && high !== undefined && inBounds) {
    if (low > high) {
      problems.add(`${field}.high`, 'must be greater than or equal to low');
    } else {
      if (!Number.isFinite(high - low))
        problems.add(`${field}.high`, 'the range high - low overflows a double');
      if (
        mode !== undefined &&
        (distribution === 'triangular' || distribution === 'pert') &&
        (mode < low || mode > high)
      ) {
        problems.add(`${field}.mode`, 'must lie within [low, high]');
      }
      if (distribution === 'lognormal' && !(low > 0)) {
        problems.add(`${field}.low`, 'must be greater than 0 for a lognormal distribution');
      }
    }
  }
  if (problems.count !== before || low === undefined || high === undefined) return undefined;
  return {
    low,
    high,
    ...(distribution !== undefined ? { distribution } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}

/** A finite number; JSON cannot carry Infinity, but 1e999 parses to it. */
function readRequiredNumber(
  value: unknown,
  field: string,
  problems: Problems,
  optional = false,
): number | undefined {
  if (value === undefined) {
    if (!optional) problems.add(field, 'is required');
    return undefined;
  }
  return readFinite(value, field, problems);
}

function readFinite(value: unknown, field: string, problems: Problems): number | undefined {
  if (typeof value !== 'number') {
    problems.add(field, 'must be a number');
    return undefined;
  }
  if (!Number.isFinite(value)) {
    problems.add(field, 'must be a finite number');
    return undefined;
  }
  return value;
}

function readModel(
  value: unknown,
  field: string,
  known: (name: string) => boolean,
  problems: Problems,
): string | undefined {
  if (typeof value !== 'string') {
    problems.add(field, 'must be a string expression');
    return undefined;
  }
  if (value.length > MAX_MODEL_LENGTH) {
    problems.add(field, `must be at most ${MAX_MODEL_LENGTH} characters`);
    return undefined;
  }
  try {
    parseExpression(value, known);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    problems.add(field, error.message);
    return undefined;
  }
  return value;
}

function readActions(
  value: unknown,
  variables: ReadonlyMap<string, RangeSpec>,
  problems: Problems,
): ActionSpec[] | undefined {
  const field = 'scenario.actions';
  if (!Array.isArray(value)) {
    problems.add(field, 'must be an array of {name, model?, set?}');
    return undefined;
  }
  if (value.length === 0) {
    problems.add(field, 'must contain at least one action');
    return undefined;
  }
  if (value.length > MAX_ACTIONS) {
    problems.add(field, `must contain at most ${MAX_ACTIONS} actions`);
    return undefined;
  }
  const names = new Set<string>();
  const actions: ActionSpec[] = [];
  value.forEach((item: unknown, index) => {
    const actionField = `${field}[${index}]`;
    if (!isObject(item)) {
      problems.add(actionField, 'must be an object {name, model?, set?}');
      return;
    }
    problems.unknownKeys(item, actionField, ['name', 'model', 'set']);
    const name = item.name;
    if (name === undefined) {
      problems.add(`${actionField}.name`, 'is required');
    } else if (
      typeof name !== 'string' ||
      name.length === 0 ||
      name.length > MAX_ACTION_NAME_LENGTH ||
      CONTROL_CHARACTERS.test(name)
    ) {
      problems.add(
        `${actionField}.name`,
        `must be a non-empty string of at most ${MAX_ACTION_NAME_LENGTH} characters without control characters`,
      );
    } else if (names.has(name)) {
      problems.add(`${actionField}.name`, `duplicate action name '${name}'`);
    } else {
      names.add(name);
    }
    const model =
      item.model !== undefined
        ? readModel(item.model, `${actionField}.model`, (n) => variables.has(n), problems)
        : undefined;
    const set =
      item.set !== undefined ? readSet(item.set, `${actionField}.set`, variables, problems) : undefined;
    actions.push({
      name: typeof name === 'string' ? name : '',
      ...(model !== undefined ? { model } : {}),
      ...(set !== undefined ? { set } : {}),
    });
  });
  return actions;
}

function readSet(
  value: unknown,
  field: string,
  variables: ReadonlyMap<string, RangeSpec>,
  problems: Problems,
): Map<string, number | RangeSpec> | undefined {
  if (!isObject(value)) {
    problems.add(field, 'must be an object mapping variable names to a number or {low, high, ...}');
    return undefined;
  }
  const set = new Map<string, number | RangeSpec>();
  for (const [name, spec] of Object.entries(value)) {
    const setField = `${field}.${name}`;
    if (!variables.has(name)) {
      problems.add(setField, `unknown variable '${name}'`);
      continue;
    }
    if (typeof spec === 'number') {
      const fixed = readFinite(spec, setField, problems);
      if (fixed !== undefined && Math.abs(fixed) > MAX_MAGNITUDE) problems.add(setField, MAGNITUDE_PROBLEM);
      else if (fixed !== undefined) set.set(name, fixed);
    } else if (isObject(spec)) {
      const range = readRange(spec, setField, problems);
      if (range) set.set(name, range);
    } else {
      problems.add(setField, 'must be a number or an object {low, high, distribution?, mode?}');
    }
  }
  return set;
}

/** A seed as JSON: a number while it is exact in JavaScript, else its decimal string (which the engine accepts). */
export function seedToJson(seed: bigint): number | string {
  return seed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seed) : seed.toString();
}

/**
 * The request in the engine's wire format; key order is fixed, so it hashes stably. Without a seed the `seed` key
 * is left out (a caller storing a request to run later); the engine always gets one.
 */
export function toEngineRequest(
  request: SimulationRequest,
  seed: bigint | undefined,
): Record<string, unknown> {
  const { scenario } = request;
  const range = (r: RangeSpec): Record<string, unknown> => ({
    low: r.low,
    high: r.high,
    ...(r.distribution !== undefined ? { distribution: r.distribution } : {}),
    ...(r.mode !== undefined ? { mode: r.mode } : {}),
  });
  return {
    mode: 'auto',
    runs: request.runs,
    ...(seed !== undefined ? { seed: seedToJson(seed) } : {}),
    detail: request.detail,
    scenario: {
      // fromEntries defines own properties, so even a variable named like an Object builtin stays data.
      variables: Object.fromEntries([...scenario.variables].map(([name, r]) => [name, range(r)])),
      objective: scenario.objective,
      ...(scenario.model !== undefined ? { model: scenario.model } : {}),
      ...(scenario.actions !== undefined
        ? {
            actions: scenario.actions.map((a) => ({
              name: a.name,
              ...(a.model !== undefined ? { model: a.model } : {}),
              ...(a.set !== undefined
                ? {
                    set: Object.fromEntries(
                      [...a.set].map(([name, v]) => [name, typeof v === 'number' ? v : range(v)]),
                    ),
                  }
                : {}),
            })),
          }
        : {}),
      ...(scenario.target !== undefined ? { target: scenario.target } : {}),
    },
  };
}
