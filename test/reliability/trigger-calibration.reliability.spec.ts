import fc from 'fast-check';
import { evaluate, parseExpression } from '../../src/common/expression/expression';
import {
  calibrationOf,
  CalibrationStatus,
  ScoredOutcome,
} from '../../src/modules/triggers/trigger-calibration';
import { startWarmEngine, WarmEngine } from './support/engine-worker';
import { checkProperty, runsOf } from './support/property';
import { seededRandom } from '../support/seeded-random';

/** The 95th percentile of the standard normal: the engine reads a normal's low/high as its 5th/95th percentiles. */
const Z95 = 1.6448536269514722;
const OUTCOMES = 100;
const MIN_OUTCOMES = 30;

interface Variable {
  readonly name: string;
  readonly distribution: 'uniform' | 'triangular' | 'normal';
  readonly low: number;
  readonly high: number;
}

/**
 * Symmetric distributions and linear models: two standard deviations off, such outcomes fall inside the 90 % band
 * 36–38 % of the time (docs/triggers.md). A skewed one can keep half its outcomes inside, a different promise.
 */
const variableArbitrary = (name: string): fc.Arbitrary<Variable> =>
  fc
    .record({
      distribution: fc.constantFrom('uniform' as const, 'triangular' as const, 'normal' as const),
      low: fc.integer({ min: -1000, max: 1000 }),
      width: fc.integer({ min: 1, max: 500 }),
    })
    .map(({ distribution, low, width }) => ({ name, distribution, low, high: low + width }));

const scenarioArbitrary = fc.record({
  variables: fc
    .integer({ min: 1, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => variableArbitrary(`v${i}`)))),
  coefficients: fc.array(
    fc.integer({ min: -5, max: 5 }).filter((c) => c !== 0),
    { minLength: 3, maxLength: 3 },
  ),
  offset: fc.integer({ min: -100, max: 100 }),
  shiftUp: fc.boolean(),
  drawSeed: fc.integer({ min: 1, max: 0x7fffffff }),
});

/**
 * Uniform draws replayable from fast-check's seed alone. The seed is scrambled first: small raw seeds (16) gave
 * first draws far from uniform.
 */
function uniforms(seed: number): () => number {
  return seededRandom(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0);
}

/** One draw of a variable, as the engine defines its distribution (triangular: mode in the middle). */
function draw(variable: Variable, u: () => number): number {
  const { low, high } = variable;
  switch (variable.distribution) {
    case 'uniform':
      return low + (high - low) * u();
    case 'triangular': {
      const p = u();
      const half = (high - low) / 2;
      return p < 0.5 ? low + Math.sqrt(2 * p) * half : high - Math.sqrt(2 * (1 - p)) * half;
    }
    case 'normal': {
      const mean = (low + high) / 2;
      const sd = (high - low) / (2 * Z95);
      const r = Math.sqrt(-2 * Math.log(1 - u()));
      return mean + sd * r * Math.cos(2 * Math.PI * u());
    }
  }
}

interface Band {
  readonly std_dev: number;
  readonly p5: number;
  readonly p95: number;
}

/** The fire's prediction: the real engine (a `simulate --serve` worker) simulating the model. */
async function predict(engine: WarmEngine, variables: readonly Variable[], model: string): Promise<Band> {
  const reply = await engine.worker.run(
    {
      runs: 20_000,
      seed: 11,
      scenario: {
        variables: Object.fromEntries(
          variables.map((v) => [
            v.name,
            {
              low: v.low,
              high: v.high,
              distribution: v.distribution,
              ...(v.distribution === 'triangular' ? { mode: (v.low + v.high) / 2 } : {}),
            },
          ]),
        ),
        objective: 'maximize_net_value',
        actions: [{ name: 'act', model }],
      },
    },
    30_000,
  );
  if (reply.type !== 'result') throw new Error(`engine refused: ${JSON.stringify(reply.error)}`);
  return (reply.result as unknown as { actions: Band[] }).actions[0];
}

/** The status after each outcome, the newest first as the repository answers them. */
function statusesAsReported(realized: readonly number[], band: Band): CalibrationStatus[] {
  const newestFirst: ScoredOutcome[] = [];
  return realized.map((value, i) => {
    newestFirst.unshift({ realized: value, p5: band.p5, p95: band.p95, recommendedWasBest: null });
    return calibrationOf(newestFirst, i + 1, 0, MIN_OUTCOMES).status;
  });
}

describe('trigger calibration against the engine', () => {
  let engine: WarmEngine;
  beforeAll(async () => {
    engine = await startWarmEngine();
  });
  afterAll(() => engine.stop());

  it('outcomes drawn from the simulated distributions reach calibrated; shifted by two standard deviations, never', async () => {
    await checkProperty(
      fc.asyncProperty(scenarioArbitrary, async ({ variables, coefficients, offset, shiftUp, drawSeed }) => {
        const model = [String(offset), ...variables.map((v, i) => `${coefficients[i]} * ${v.name}`)].join(
          ' + ',
        );
        const band = await predict(engine, variables, model);
        const tree = parseExpression(
          model,
          variables.map((v) => v.name),
        );
        const u = uniforms(drawSeed);
        const realized = Array.from({ length: OUTCOMES }, () =>
          evaluate(tree, Object.fromEntries(variables.map((v) => [v.name, draw(v, u)]))),
        );

        const honest = statusesAsReported(realized, band);
        expect(honest.slice(0, MIN_OUTCOMES - 1).every((s) => s === 'calibrating')).toBe(true);
        expect(honest[OUTCOMES - 1]).toBe('calibrated');

        const shift = (shiftUp ? 2 : -2) * band.std_dev;
        const shifted = statusesAsReported(
          realized.map((value) => value + shift),
          band,
        );
        expect(shifted.filter((s) => s === 'calibrated')).toEqual([]);
        expect(shifted[OUTCOMES - 1]).toBe('degraded');
      }),
      // A shifted case is calibrated at some count by chance 4e-5 of the time (docs/reliability.md): 50 cases.
      runsOf(0.025),
    );
  });
});
