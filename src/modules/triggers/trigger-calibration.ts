import { evaluate, ExpressionError, parseExpression } from '../../common/expression/expression';
import { AppError } from '../../common/errors';

/** The share of realized values the predicted 5th–95th percentile band promises to hold. */
export const COVERAGE_TARGET = 0.9;
export const DEFAULT_MIN_OUTCOMES = 30;
export const MIN_MIN_OUTCOMES = 10;
export const MAX_MIN_OUTCOMES = 10_000;
/** Calibration is judged on the most recent outcomes only, so a model that drifts shows as `degraded`. */
export const CALIBRATION_WINDOW = 100;
const TOLERANCE_SIGMAS = 3;

export const CALIBRATION_STATUSES = ['calibrating', 'calibrated', 'degraded'] as const;
export type CalibrationStatus = (typeof CALIBRATION_STATUSES)[number];

/** Three standard deviations of the share of n Bernoulli(0.9) outcomes at n = `min_outcomes` (docs/triggers.md). */
export function coverageTolerance(minOutcomes: number): number {
  return TOLERANCE_SIGMAS * Math.sqrt((COVERAGE_TARGET * (1 - COVERAGE_TARGET)) / minOutcomes);
}

export interface PredictedAction {
  readonly name: string;
  readonly mean: number;
  readonly std_dev: number;
  readonly p5: number;
  readonly p95: number;
  readonly model: string;
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
  readonly actionValues: Record<string, number>;
  readonly bestAction: string;
  readonly recommendedWasBest: boolean;
}

/** `current_value` defaults to the value the fire read; an action's own fixed `set` values win. */
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

export interface ScoredOutcome {
  readonly realized: number;
  readonly p5: number;
  readonly p95: number;
  readonly recommendedWasBest: boolean | null;
}

export interface Calibration {
  readonly status: CalibrationStatus;
  readonly outcomes: number;
  /** Outcomes reported by other roles (or before reporters were kept): shown, never counted. */
  readonly uncounted: number;
  readonly window: number;
  readonly insideBand: number;
  readonly belowBand: number;
  readonly aboveBand: number;
  readonly coverage: number | null;
  readonly minOutcomes: number;
  readonly tolerance: number;
  readonly judged: number;
  readonly recommendedBest: number;
}

export function calibrationWindow(minOutcomes: number): number {
  return Math.max(CALIBRATION_WINDOW, minOutcomes);
}

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
