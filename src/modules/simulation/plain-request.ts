import { ExpressionError, parseExpression } from '../../common/expression/expression';
import { isPlainObject } from '../../common/validation';
import { isVariableName, seedProblem } from './simulation.dto';
import {
  DEFAULT_RUNS,
  DISTRIBUTIONS,
  MAX_MAGNITUDE,
  MAX_MODEL_LENGTH,
  MAX_RUNS,
  MAX_VARIABLES,
  OBJECTIVES,
  RangeSpec,
  SimulationRequest,
} from './simulation-request';

/**
 * The common `/v1/simulate` body (variables with their ranges, an objective, a model; no actions) read without the
 * DTO classes: class-transformer and class-validator cost about 0.15 ms per request, more than the rest of the
 * daemon's own work on it. It only ever accepts: anything it is not sure the DTOs accept (another shape, a broken
 * rule) answers undefined, and the caller then runs the DTOs, which accept it or list its problems. So errors
 * always come from the DTOs, and an accepted body gives what `toSimulationRequest` would.
 */
export function readPlainRequest(body: unknown): SimulationRequest | undefined {
  if (!isPlainObject(body) || !hasOnly(body, BODY_FIELDS)) return undefined;
  const { mode, runs, seed, detail, scenario } = body;
  if (mode !== undefined && mode !== 'auto') return undefined;
  if (
    runs !== undefined &&
    !(Number.isInteger(runs) && (runs as number) >= 1 && (runs as number) <= MAX_RUNS)
  ) {
    return undefined;
  }
  if (seed !== undefined && seedProblem(seed) !== undefined) return undefined;
  if (detail !== undefined && detail !== 'summary' && detail !== 'full') return undefined;
  if (!isPlainObject(scenario) || !hasOnly(scenario, SCENARIO_FIELDS)) return undefined;
  const { variables, objective, model, target } = scenario;
  if (!OBJECTIVES.some((known) => known === objective)) return undefined;
  if (target !== undefined && !isFiniteNumber(target)) return undefined;
  const ranges = readVariables(variables);
  if (!ranges) return undefined;
  if (model !== undefined && !isModel(model, [...ranges.keys()])) return undefined;
  return {
    runs: (runs as number | undefined) ?? DEFAULT_RUNS,
    ...(seed !== undefined ? { seed: BigInt(seed as number | string) } : {}),
    detail: detail ?? 'summary',
    scenario: {
      variables: ranges,
      objective: objective as SimulationRequest['scenario']['objective'],
      ...(model !== undefined ? { model: model as string } : {}),
      ...(target !== undefined ? { target } : {}),
    },
  };
}

const BODY_FIELDS: ReadonlySet<string> = new Set(['mode', 'runs', 'seed', 'detail', 'scenario']);
const SCENARIO_FIELDS: ReadonlySet<string> = new Set(['variables', 'objective', 'model', 'target']);
const RANGE_FIELDS: ReadonlySet<string> = new Set(['low', 'high', 'distribution', 'mode']);
const BOUNDED_BY_RANGE: ReadonlySet<unknown> = new Set(['triangular', 'pert']);

function hasOnly(object: Record<string, unknown>, fields: ReadonlySet<string>): boolean {
  for (const key in object) if (!fields.has(key)) return false;
  return true;
}

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const isBound = (value: unknown): value is number =>
  isFiniteNumber(value) && Math.abs(value) <= MAX_MAGNITUDE;

function readVariables(variables: unknown): Map<string, RangeSpec> | undefined {
  if (!isPlainObject(variables)) return undefined;
  const ranges = new Map<string, RangeSpec>();
  for (const [name, range] of Object.entries(variables)) {
    const spec = isVariableName(name) ? readRange(range) : undefined;
    if (!spec) return undefined;
    ranges.set(name, spec);
  }
  return ranges.size > 0 && ranges.size <= MAX_VARIABLES ? ranges : undefined;
}

function readRange(range: unknown): RangeSpec | undefined {
  if (!isPlainObject(range) || !hasOnly(range, RANGE_FIELDS)) return undefined;
  const { low, high, distribution, mode } = range;
  if (!isBound(low) || !isBound(high) || low > high || !Number.isFinite(high - low)) return undefined;
  if (distribution !== undefined && !DISTRIBUTIONS.some((known) => known === distribution)) return undefined;
  if (distribution === 'lognormal' && !(low > 0)) return undefined;
  if (mode !== undefined) {
    if (!isFiniteNumber(mode)) return undefined;
    if (BOUNDED_BY_RANGE.has(distribution) && (mode < low || mode > high)) return undefined;
  }
  return {
    low,
    high,
    ...(distribution !== undefined ? { distribution: distribution as RangeSpec['distribution'] } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}

function isModel(model: unknown, variables: readonly string[]): boolean {
  if (typeof model !== 'string' || model.length > MAX_MODEL_LENGTH) return false;
  try {
    parseExpression(model, variables);
    return true;
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}
