import fc from 'fast-check';
import { AppError } from '../../src/common/errors';
import { assertValidCorrelations } from '../../src/modules/simulation/correlation-matrix';
import { engineDraws } from '../../src/modules/simulation/engine-draws';
import { toEngineRequest, VariableSpec } from '../../src/modules/simulation/simulation-request';
import { startWarmEngine, WarmEngine } from './support/engine-worker';
import { checkProperty, runsOf } from './support/property';

/**
 * The C++ engine's draws of every family against the TypeScript evaluator of the same stream
 * (src/modules/simulation/engine-draws.ts): each action's model is one variable, so its min, max, median and mean
 * are order statistics of that variable's draws, which the evaluator computes independently. With correlations the
 * engine only re-pairs the same draws, so the same statistics must hold, and the achieved rank correlations must
 * land on their targets.
 */

const positive = (min: number, max: number): fc.Arbitrary<number> =>
  fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

const variableArbitrary: fc.Arbitrary<VariableSpec> = fc.oneof(
  fc
    .record({ a: fc.double({ min: -1e6, max: 1e6, noNaN: true }), w: positive(0, 1e6) })
    .map(({ a, w }): VariableSpec => ({ low: a, high: a + w })),
  fc
    .record({
      a: fc.double({ min: -1e3, max: 1e3, noNaN: true }),
      w: positive(1e-3, 1e3),
      m: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ a, w, m }): VariableSpec => ({
      low: a,
      high: a + w,
      distribution: 'triangular',
      mode: a + m * w,
    })),
  fc
    .record({ a: fc.double({ min: -1e3, max: 1e3, noNaN: true }), w: positive(1e-3, 1e3) })
    .map(({ a, w }): VariableSpec => ({ low: a, high: a + w, distribution: 'normal' })),
  fc
    .record({ mean: fc.double({ min: -1e3, max: 1e3, noNaN: true }), sd: positive(0, 1e3) })
    .map((params): VariableSpec => ({ distribution: 'normal', params })),
  fc
    .record({ meanlog: fc.double({ min: -5, max: 5, noNaN: true }), sdlog: positive(0, 2) })
    .map((params): VariableSpec => ({ distribution: 'lognormal', params })),
  fc
    .record({ shape: positive(0.05, 50), scale: positive(1e-3, 1e3) })
    .map((params): VariableSpec => ({ distribution: 'gamma', params })),
  fc
    .record({ shape: positive(0.2, 20), scale: positive(1e-3, 1e3) })
    .map((params): VariableSpec => ({ distribution: 'weibull', params })),
  fc
    .record({ rate: positive(1e-3, 1e3) })
    .map((params): VariableSpec => ({ distribution: 'exponential', params })),
  fc
    .array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 })
    .map((values): VariableSpec => ({ distribution: 'empirical', values })),
);

interface Statistics {
  min: number;
  max: number;
  p50: number;
  mean: number;
}

function statisticsOf(draws: readonly number[]): Statistics {
  const sorted = [...draws].sort((a, b) => a - b);
  const h = (sorted.length - 1) * 0.5;
  const k = Math.floor(h);
  const frac = h - k;
  const p50 =
    frac === 0 || k + 1 >= sorted.length ? sorted[k] : sorted[k] + frac * (sorted[k + 1] - sorted[k]);
  return {
    min: sorted[0],
    max: sorted[sorted.length - 1],
    p50,
    mean: draws.reduce((s, x) => s + x, 0) / draws.length,
  };
}

/** V8's and glibc's log/exp/pow may differ in the last bits; sums differ by their order. */
function close(engine: number, typescript: number, scale: number, relative = 1e-12): boolean {
  return Math.abs(engine - typescript) <= relative * Math.max(1, scale);
}

/** The engine refuses to correlate a variable that never varies. */
function isConstant(spec: VariableSpec): boolean {
  if ('values' in spec) return Math.min(...spec.values) === Math.max(...spec.values);
  if ('params' in spec) return spec.params.sd === 0 || spec.params.sdlog === 0;
  return spec.low === spec.high;
}

interface Case {
  variables: VariableSpec[];
  runs: number;
  seed: number;
  correlations?: { a: string; b: string; rank: number }[];
}

async function runEngine(engine: WarmEngine, c: Case): Promise<Record<string, unknown>> {
  const names = c.variables.map((_, i) => `v${i}`);
  const request = toEngineRequest(
    {
      runs: c.runs,
      detail: 'summary',
      scenario: {
        variables: new Map(names.map((name, i) => [name, c.variables[i]])),
        objective: 'maximize_value',
        actions: names.map((name) => ({ name, model: name })),
        ...(c.correlations ? { correlations: c.correlations } : {}),
      },
    },
    BigInt(c.seed),
  );
  const reply = await engine.worker.run(request, 60_000);
  if (reply.type !== 'result') throw new Error(`engine refused: ${JSON.stringify(reply.error)}`);
  return reply.result as unknown as Record<string, unknown>;
}

function expectSameMarginals(result: Record<string, unknown>, c: Case): void {
  const draws = engineDraws(BigInt(c.seed), c.variables, c.runs);
  const actions = result.actions as (Statistics & { name: string })[];
  for (const [i, action] of actions.entries()) {
    const want = statisticsOf(draws[i]);
    const scale = Math.max(Math.abs(want.min), Math.abs(want.max));
    for (const key of ['min', 'max', 'p50'] as const) {
      if (!close(action[key], want[key], scale)) {
        throw new Error(
          `${action.name} (${JSON.stringify(c.variables[i])}): engine ${key} ${action[key]}, TypeScript ${want[key]}`,
        );
      }
    }
    if (!close(action.mean, want.mean, scale, 1e-9)) {
      throw new Error(`${action.name}: engine mean ${action.mean}, TypeScript ${want.mean}`);
    }
  }
}

describe('the engine families against the TypeScript evaluator', () => {
  let engine: WarmEngine;
  beforeAll(async () => {
    engine = await startWarmEngine();
  });
  afterAll(() => engine?.stop());

  it('draws the same numbers for every family, seed and run count', async () => {
    await checkProperty(
      fc.asyncProperty(
        fc.array(variableArbitrary, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        async (variables, runs, seed) => {
          const c = { variables, runs, seed };
          expectSameMarginals(await runEngine(engine, c), c);
        },
      ),
      runsOf(0.05),
    );
  });

  it('keeps every marginal under random valid correlations and lands the targets', async () => {
    // A valid target matrix from random unit vectors: their Gram matrix is positive semi-definite.
    const vectorArbitrary = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), {
      minLength: 3,
      maxLength: 3,
    });
    await checkProperty(
      fc.asyncProperty(
        fc.array(variableArbitrary, { minLength: 2, maxLength: 4 }),
        fc.array(vectorArbitrary, { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 200, max: 4096 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        async (variables, vectors, runs, seed) => {
          fc.pre(!variables.some(isConstant));
          const units = vectors.map((v) => {
            const norm = Math.hypot(...v);
            return norm > 1e-3 ? v.map((x) => x / norm) : [1, 0, 0];
          });
          const correlations: { a: string; b: string; rank: number }[] = [];
          for (let i = 0; i < variables.length; i++) {
            for (let j = i + 1; j < variables.length; j++) {
              const dot = units[i].reduce((s, x, m) => s + x * units[j][m], 0);
              correlations.push({ a: `v${i}`, b: `v${j}`, rank: Math.max(-1, Math.min(1, dot)) });
            }
          }
          const c = { variables, runs, seed, correlations };
          const result = await runEngine(engine, c);
          expectSameMarginals(result, c);
          // Achieved: Spearman of the draws; within 3 standard errors (1/sqrt(n - 1)) of the target unless ties
          // (an empirical sample, a constant) cap what ranks can show.
          const draws = engineDraws(BigInt(seed), variables, runs);
          const distinct = draws.map((d) => new Set(d).size === runs);
          for (const got of result.correlations as {
            a: string;
            b: string;
            target: number;
            achieved: number;
          }[]) {
            const i = Number(got.a.slice(1));
            const j = Number(got.b.slice(1));
            if (!distinct[i] || !distinct[j]) continue;
            if (Math.abs(got.achieved - got.target) > 3 / Math.sqrt(runs - 1)) {
              throw new Error(
                `${got.a}~${got.b}: target ${got.target}, achieved ${got.achieved} over ${runs} runs`,
              );
            }
          }
        },
      ),
      runsOf(0.02),
    );
  });

  it('refuses the same correlation matrices as the TypeScript check, naming the same pairs', async () => {
    await checkProperty(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 5 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 10, maxLength: 10 }),
        async (k, ranks) => {
          const names = Array.from({ length: k }, (_, i) => `v${i}`);
          const correlations: { a: string; b: string; rank: number }[] = [];
          for (let i = 0, r = 0; i < k; i++)
            for (let j = i + 1; j < k; j++) correlations.push({ a: names[i], b: names[j], rank: ranks[r++] });
          const variables = names.map((): VariableSpec => ({ low: 0, high: 1 }));
          const request = {
            runs: 10,
            detail: 'summary' as const,
            scenario: {
              variables: new Map(names.map((name, i) => [name, variables[i]])),
              objective: 'maximize_value' as const,
              correlations,
            },
          };
          let typescript: string[] = [];
          try {
            assertValidCorrelations(request);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            typescript = (error.details ?? []).map((d) => d.field);
          }
          const reply = await engine.worker.run(toEngineRequest(request, 1n), 60_000);
          const fromEngine =
            reply.type === 'error' && reply.error.code === 'correlation_matrix_invalid'
              ? (reply.error.details ?? []).map((d) => d.field)
              : [];
          expect(fromEngine).toEqual(typescript);
        },
      ),
      runsOf(0.05),
    );
  });
});
