import { ActionStatistics, EngineReply, EngineRequest, EngineResult } from './engine.types';

/**
 * The probe: the sum of two uniforms on [0, 1] is triangular on [0, 2] (mean 1, sd sqrt(1/6), p5 = sqrt(0.1)); the
 * seed is fixed and the tolerances are six standard errors at this run count.
 */
export const PROBE_REQUEST: EngineRequest = Object.freeze({
  runs: 20000,
  seed: 20260101,
  scenario: {
    variables: { a: { low: 0, high: 1 }, b: { low: 0, high: 1 } },
    objective: 'maximize_net_value',
    model: 'a + b',
  },
});

const RUNS = 20000;
const SD = Math.sqrt(1 / 6);
const CHECKS: readonly {
  name: string;
  value: (r: EngineResult) => number;
  expected: number;
  tolerance: number;
}[] = [
  {
    name: 'proceed.mean',
    value: (r) => r.actions[0].mean,
    expected: 1,
    tolerance: (6 * SD) / Math.sqrt(RUNS),
  },
  { name: 'proceed.std_dev', value: (r) => r.actions[0].std_dev, expected: SD, tolerance: 0.03 * SD },
  { name: 'proceed.p5', value: (r) => r.actions[0].p5, expected: Math.sqrt(0.1), tolerance: 0.03 },
  { name: 'proceed.p50', value: (r) => r.actions[0].p50, expected: 1, tolerance: 0.03 },
  { name: 'proceed.p95', value: (r) => r.actions[0].p95, expected: 2 - Math.sqrt(0.1), tolerance: 0.03 },
  { name: 'proceed.prob_positive', value: (r) => r.actions[0].prob_positive, expected: 1, tolerance: 0 },
  { name: 'do_nothing.mean', value: (r) => r.actions[1].mean, expected: 0, tolerance: 0 },
  { name: 'confidence', value: (r) => r.confidence, expected: 1, tolerance: 0 },
];

/** Thrown when the engine answered the probe but with wrong numbers: the binary is broken, not just slow. */
export class ProbeComputeError extends Error {
  constructor(problem: string) {
    super(`the engine computed the probe wrongly: ${problem}`);
    this.name = 'ProbeComputeError';
  }
}

export function checkProbeReply(reply: EngineReply): EngineResult {
  if (reply.type === 'error')
    throw new ProbeComputeError(`it answered ${reply.error.code}: ${reply.error.message}`);
  const result = reply.result;
  const actions: readonly ActionStatistics[] | undefined = Array.isArray(result.actions)
    ? result.actions
    : undefined;
  if (!actions || actions.length !== 2)
    throw new ProbeComputeError('the result does not list the two default actions');
  const names = actions.map((a) => a.name).join(',');
  if (names !== 'proceed,do_nothing') throw new ProbeComputeError(`the actions are ${names}`);
  if (result.runs !== RUNS) throw new ProbeComputeError(`runs is ${String(result.runs)}`);
  if (Number(result.seed) !== PROBE_REQUEST.seed)
    throw new ProbeComputeError(`seed is ${String(result.seed)}`);
  if (result.recommended_action !== 'proceed') {
    throw new ProbeComputeError(`recommended_action is ${String(result.recommended_action)}`);
  }
  for (const check of CHECKS) {
    const value = check.value(result);
    if (typeof value !== 'number' || !(Math.abs(value - check.expected) <= check.tolerance)) {
      throw new ProbeComputeError(
        `${check.name} is ${String(value)}, expected ${check.expected} ± ${check.tolerance}`,
      );
    }
  }
  return result;
}

export function resultFingerprint(result: EngineResult): string {
  const { compute_ms: _computeMs, ...numbers } = result;
  return JSON.stringify(numbers);
}
