export const DISTRIBUTIONS = ['uniform', 'triangular', 'pert', 'normal', 'lognormal'] as const;
export type DistributionName = (typeof DISTRIBUTIONS)[number];
/** Families a variable may give by explicit parameters, `{distribution, params}`, with their parameter names. */
export const PARAM_FAMILIES = {
  normal: ['mean', 'sd'],
  lognormal: ['meanlog', 'sdlog'],
  gamma: ['shape', 'scale'],
  weibull: ['shape', 'scale'],
  exponential: ['rate'],
  uniform: ['min', 'max'],
  triangular: ['min', 'mode', 'max'],
  pert: ['min', 'mode', 'max'],
} as const;
export type ParamFamily = keyof typeof PARAM_FAMILIES;
/** At most this many values in an empirical variable, as in the engine. */
export const MAX_EMPIRICAL_VALUES = 1_000_000;
/** At most this many distinct variables in `scenario.correlations`, as in the engine. */
export const MAX_CORRELATED_VARIABLES = 64;
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
export const MAX_SEED = 18446744073709551615n;

export interface RangeSpec {
  readonly low: number;
  readonly high: number;
  readonly distribution?: DistributionName;
  readonly mode?: number;
}

export interface ParamSpec {
  readonly distribution: ParamFamily;
  readonly params: Readonly<Record<string, number>>;
}

/** Resampled with replacement (bootstrap) from these values, with the run's random stream. */
export interface EmpiricalSpec {
  readonly distribution: 'empirical';
  readonly values: readonly number[];
}

export type VariableSpec = RangeSpec | ParamSpec | EmpiricalSpec;

export interface CorrelationSpec {
  readonly a: string;
  readonly b: string;
  readonly rank: number;
}

export interface ActionSpec {
  readonly name: string;
  readonly model?: string;
  readonly set?: ReadonlyMap<string, number | VariableSpec>;
}

export interface Scenario {
  /** In declaration order: the order decides which random stream each variable gets. */
  readonly variables: ReadonlyMap<string, VariableSpec>;
  readonly objective: Objective;
  readonly model?: string;
  readonly actions?: readonly ActionSpec[];
  readonly target?: number;
  readonly correlations?: readonly CorrelationSpec[];
  /** A target matrix that is not positive semi-definite is replaced by the nearest valid one instead of refused. */
  readonly adjust_correlations?: boolean;
}

export interface SimulationRequest {
  readonly runs: number;
  /** Absent: the daemon picks one, so every run is recorded with the seed that reproduces it. */
  readonly seed?: bigint;
  readonly detail: 'summary' | 'full';
  readonly scenario: Scenario;
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
  const range = (r: VariableSpec): Record<string, unknown> => variableToEngine(r);
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
      ...(scenario.correlations !== undefined
        ? { correlations: scenario.correlations.map((c) => ({ a: c.a, b: c.b, rank: c.rank })) }
        : {}),
      ...(scenario.adjust_correlations !== undefined
        ? { adjust_correlations: scenario.adjust_correlations }
        : {}),
    },
  };
}

export const isParamSpec = (spec: VariableSpec): spec is ParamSpec => 'params' in spec;
export const isEmpiricalSpec = (spec: VariableSpec): spec is EmpiricalSpec => 'values' in spec;

/** A variable in the engine's wire format; parameters in PARAM_FAMILIES order, so the request hashes stably. */
export function variableToEngine(spec: VariableSpec): Record<string, unknown> {
  if (isEmpiricalSpec(spec)) return { distribution: 'empirical', values: spec.values };
  if (isParamSpec(spec)) {
    const names: readonly string[] = PARAM_FAMILIES[spec.distribution];
    return {
      distribution: spec.distribution,
      params: Object.fromEntries(names.map((name) => [name, spec.params[name]])),
    };
  }
  return {
    low: spec.low,
    high: spec.high,
    ...(spec.distribution !== undefined ? { distribution: spec.distribution } : {}),
    ...(spec.mode !== undefined ? { mode: spec.mode } : {}),
  };
}
