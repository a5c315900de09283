import { evaluate, ExpressionError, parseExpression } from '../../common/expression/expression';
import { AppError } from '../../common/errors';

/** The share of realized values the predicted 5th–95th percentile band promises to hold. */
export const COVERAGE_TARGET = 0.9;
/** Outcomes a trigger needs before it can be `calibrated` (the policy's `min_outcomes` default). */
export const DEFAULT_MIN_OUTCOMES = 30;
export const MIN_MIN_OUTCOMES = 10;
export const MAX_MIN_OUTCOMES = 10_000;
/** Calibration is judged on the most recent outcomes only, so a model that drifts shows as `degraded`. */
export const CALIBRATION_WINDOW = 100;
/** Standard deviations of the binomial spread at `min_outcomes` that a coverage may stray from the target. */
const TOLERANCE_SIGMAS = 3;

export const CALIBRATION_STATUSES = ['calibrating', 'calibrated', 'degraded'] as const;
export type CalibrationStatus = (typeof CALIBRATION_STATUSES)[number];

/**
 * How far the observed coverage may stray from 90 %: three standard deviations of the share of n Bernoulli(0.9)
 * outcomes, √(0.9 · 0.1 / n), at n = `min_outcomes` (0.164 at 30). docs/triggers.md gives the reasoning.
 */
export function coverageTolerance(minOutcomes: number): number {
  return TOLERANCE_SIGMAS * Math.sqrt((COVERAGE_TARGET * (1 - COVERAGE_TARGET)) / minOutcomes);
}

/** One action as the fire's simulation predicted it, with what is needed to evaluate it on realized values. */
export interface PredictedAction {
  readonly name: string;
  readonly mean: number;
  readonly std_dev: number;
  readonly p5: number;
  readonly p95: number;
  /** The expression the engine evaluated for this action (its own model, the scenario's, or the variables' sum). */
  readonly model: string;
  /** Variables the action fixes to a number (its `set`), which override the realized values. */
  readonly fixed: Readonly<Record<string, number>>;
}

/** What a fire keeps to judge an outcome later, whatever happens to the trigger's definition meanwhile. */
export interface Prediction {
  readonly seed: number | string;
  readonly maximize: boolean;
  readonly variables: readonly string[];
  readonly actions: readonly PredictedAction[];
}

interface ScenarioBody {
  readonly variables: Record<string, unknown>;
  readonly objective: string;
  readonly model?: string;
  readonly actions?: readonly { name: string; model?: string; set?: Record<string, unknown> }[];
}

/** The prediction of a fire: the simulated actions joined with the models of the scenario that produced them. */
export function predictionOf(
  scenario: ScenarioBody,
  seed: number | string,
  actions: readonly { name: string; mean: number; std_dev: number; p5: number; p95: number }[],
): Prediction {
  const variables = Object.keys(scenario.variables);
  const scenarioModel = scenario.model ?? variables.join(' + ');
  const specs = scenario.actions ?? [
    { name: 'proceed', model: scenarioModel },
    { name: 'do_nothing', model: '0' },
  ];
  return {
    seed,
    maximize: scenario.objective !== 'minimize_cost',
    variables,
    actions: actions.map((simulated) => {
      const spec = specs.find((a) => a.name === simulated.name);
      const fixed = Object.fromEntries(
        Object.entries(spec?.set ?? {}).filter(
          (entry): entry is [string, number] => typeof entry[1] === 'number',
        ),
      );
      return {
        name: simulated.name,
        mean: simulated.mean,
        std_dev: simulated.std_dev,
        p5: simulated.p5,
        p95: simulated.p95,
        model: spec?.model ?? scenarioModel,
        fixed,
      };
    }),
  };
}

export interface Judgement {
  /** Every action's value on the realized variables, by name. */
  readonly actionValues: Record<string, number>;
  readonly bestAction: string;
  /** True when no action did strictly better than the recommended one. */
  readonly recommendedWasBest: boolean;
}

/**
 * Evaluates every action's model on the realized variables (an action's own fixed `set` values win; `current_value`
 * defaults to the value the fire read), so "was the recommended action best" has an answer. Throws a 422 for a
 * variable the scenario does not declare, one it needs and was not given, or a model that gives no finite value.
 */
export function judgeOutcome(
  prediction: Prediction,
  recommended: string,
  realized: Readonly<Record<string, number>>,
  currentValue: number,
): Judgement {
  const unknown = Object.keys(realized).filter((name) => !prediction.variables.includes(name));
  if (unknown.length > 0) {
    throw AppError.validation(
      unknown.slice(0, 10).map((name) => ({
        field: `realized_variables.${name.slice(0, 64)}`,
        problem: 'is not a variable of the simulation this fire ran',
      })),
    );
  }
  const base: Record<string, number> = { current_value: currentValue, ...realized };
  const missing = prediction.variables.filter((name) => !Object.hasOwn(base, name));
  const actionValues: Record<string, number> = {};
  for (const action of prediction.actions) {
    const scope = { ...base, ...action.fixed };
    let value: number;
    try {
      value = evaluate(parseExpression(action.model, prediction.variables), scope);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      throw AppError.validation([
        {
          field: 'realized_variables',
          problem: `must give every variable the models read (missing: ${missing.join(', ').slice(0, 200)})`,
        },
      ]);
    }
    if (!Number.isFinite(value)) {
      throw AppError.validation([
        { field: 'realized_variables', problem: `give action '${action.name}' no finite value` },
      ]);
    }
    actionValues[action.name] = value;
  }
  const better = (a: number, b: number): boolean => (prediction.maximize ? a > b : a < b);
  let bestAction = prediction.actions[0].name;
  for (const action of prediction.actions) {
    if (better(actionValues[action.name], actionValues[bestAction])) bestAction = action.name;
  }
  const recommendedValue = actionValues[recommended];
  return {
    actionValues,
    bestAction,
    recommendedWasBest: recommendedValue !== undefined && !better(actionValues[bestAction], recommendedValue),
  };
}

/** One reported outcome against the band its fire predicted for the recommended action. */
export interface ScoredOutcome {
  readonly realized: number;
  readonly p5: number;
  readonly p95: number;
  readonly recommendedWasBest: boolean | null;
}

export interface Calibration {
  readonly status: CalibrationStatus;
  /** Every outcome that counts: reported by a role the execution policy names. */
  readonly outcomes: number;
  /** Outcomes reported by other roles (or before reporters were kept): shown, never counted. */
  readonly uncounted: number;
  /** The most recent outcomes the status is judged on (at most CALIBRATION_WINDOW, or min_outcomes if larger). */
  readonly window: number;
  readonly insideBand: number;
  readonly belowBand: number;
  readonly aboveBand: number;
  /** insideBand / window; null before the first outcome. */
  readonly coverage: number | null;
  readonly minOutcomes: number;
  readonly tolerance: number;
  /** Outcomes of the window reported with realized variables, and how many of those found the recommendation best. */
  readonly judged: number;
  readonly recommendedBest: number;
}

export function calibrationWindow(minOutcomes: number): number {
  return Math.max(CALIBRATION_WINDOW, minOutcomes);
}

/** The calibration of a trigger from its most recent outcomes (`recent`, at most one window) and their total. */
export function calibrationOf(
  recent: readonly ScoredOutcome[],
  total: number,
  uncounted: number,
  minOutcomes: number,
): Calibration {
  const window = recent.slice(0, calibrationWindow(minOutcomes));
  const below = window.filter((o) => o.realized < o.p5).length;
  const above = window.filter((o) => o.realized > o.p95).length;
  const inside = window.length - below - above;
  const coverage = window.length === 0 ? null : inside / window.length;
  const tolerance = coverageTolerance(minOutcomes);
  const judged = window.filter((o) => o.recommendedWasBest !== null);
  const status: CalibrationStatus =
    coverage === null || window.length < minOutcomes
      ? 'calibrating'
      : Math.abs(coverage - COVERAGE_TARGET) <= tolerance
        ? 'calibrated'
        : 'degraded';
  return {
    status,
    outcomes: total,
    uncounted,
    window: window.length,
    insideBand: inside,
    belowBand: below,
    aboveBand: above,
    coverage,
    minOutcomes,
    tolerance,
    judged: judged.length,
    recommendedBest: judged.filter((o) => o.recommendedWasBest === true).length,
  };
}
