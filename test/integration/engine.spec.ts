import { join } from 'node:path';
import { AppError, StartupError, toErrorBody } from '../../src/common/errors';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import { EngineService } from '../../src/modules/engine/engine.service';
import { parseSimulation, storedSimulation } from '../../src/modules/simulation/simulation.types';
import { SimulationRuns } from '../../src/modules/simulation/simulation-runs.service';
import { SimulationService } from '../../src/modules/simulation/simulation.service';
import { SimulationResponse } from '../../src/modules/simulation/simulation.dto';
import { REPO_ROOT } from '../support/daemon-process';
import { runningOneOf, servingWorkersUnder } from '../support/engine-processes';
import { startTestApp, TestApp } from '../support/test-app';

/** What POST /v1/simulate does, without HTTP: parse the body, simulate, record the run. */
function simulationOf(t: TestApp) {
  const service = t.app.get(SimulationService);
  const runs = t.app.get(SimulationRuns);
  return {
    simulate: async (orgId: string, body: unknown): Promise<SimulationResponse> =>
      runs.record(await service.simulate(parseSimulation(body), { orgId })),
    findRun: (orgId: string, runId: string) => runs.find(orgId, runId),
  };
}

// Real processes on a shared machine: start-up can take seconds under load.
jest.setTimeout(60_000);

const FAKES = join(REPO_ROOT, 'test', 'fixtures', 'engine');
const ORG = 'org_test';

/** The numbers of a response without what legitimately differs between two runs of the same request. */
function numbers(response: Record<string, unknown>): string {
  const { run_id: _runId, engine_mode: _mode, compute_ms: _ms, ...rest } = response;
  return JSON.stringify(rest);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return 'ok';
}

const decision = {
  runs: 50_000,
  seed: 12345,
  detail: 'full',
  scenario: {
    variables: {
      demand: { low: 800, high: 1200, distribution: 'normal' },
      price: { low: 9, high: 12, distribution: 'triangular', mode: 10 },
      unit_cost: { low: 4, high: 7, distribution: 'pert', mode: 5 },
      fixed: { low: 2000, high: 3000 },
      growth: { low: 1.01, high: 1.2, distribution: 'lognormal' },
    },
    objective: 'maximize_net_value',
    model: 'demand * growth * (price - unit_cost) - fixed',
    actions: [
      { name: 'launch' },
      {
        name: 'discount',
        set: { price: { low: 8, high: 10 } },
        model: 'demand * 1.3 * growth * (price - unit_cost) - fixed',
      },
      { name: 'wait', model: '0' },
    ],
    target: 1000,
  },
};

/** The families by parameters, an empirical sample and correlated inputs (issue 38). */
const calibrated = {
  runs: 30_000,
  seed: 6789,
  scenario: {
    variables: {
      demand: { distribution: 'gamma', params: { shape: 9, scale: 110 } },
      price: { distribution: 'weibull', params: { shape: 6, scale: 11 } },
      delay: { distribution: 'exponential', params: { rate: 0.2 } },
      unit_cost: { distribution: 'empirical', values: [4.1, 4.4, 4.9, 5.2, 5.3, 6.8] },
    },
    objective: 'maximize_net_value',
    model: 'demand * (price - unit_cost) - 10 * delay',
    correlations: [
      { a: 'price', b: 'demand', rank: -0.5 },
      { a: 'unit_cost', b: 'price', rank: 0.3 },
    ],
  },
};

describe('engine with the real binary', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((t) => t.close()));
  });
  const boot = async (env: Record<string, string>): Promise<TestApp> => {
    const t = await startTestApp(env);
    apps.push(t);
    return t;
  };
  const services = (t: TestApp) => ({
    engine: t.app.get(EngineService),
    simulation: simulationOf(t),
  });

  it('gives byte-identical numbers on pool sizes 1 and 2 and on the subprocess fallback', async () => {
    const one = services(await boot({ ENGINE_POOL_SIZE: '1' }));
    const two = services(await boot({ ENGINE_POOL_SIZE: '2' }));
    const fallback = services(await boot({ ENGINE_POOL_SIZE: '0', RUNTIME_FALLBACK_MODE: 'allow' }));
    expect(one.engine.status().mode).toBe('pool');
    expect(two.engine.status().mode).toBe('pool');
    expect(fallback.engine.status().mode).toBe('subprocess_fallback');

    const reference = await one.simulation.simulate(ORG, decision);
    expect(reference.engine_mode).toBe('pool');
    const concurrent = await Promise.all([1, 2, 3, 4].map(() => two.simulation.simulate(ORG, decision)));
    const viaFallback = await fallback.simulation.simulate(ORG, decision);
    expect(viaFallback.engine_mode).toBe('subprocess_fallback');
    for (const other of [...concurrent, viaFallback])
      expect(numbers(other as never)).toBe(numbers(reference as never));
    expect(reference.seed).toBe(12345);
    expect(reference.actions.map((a) => a.name)).toEqual(['launch', 'discount', 'wait']);
    expect(reference.sensitivity[0].swing).toEqual(expect.any(Number));
    expect(reference.actions[0].prob_target).toEqual(expect.any(Number));

    const calibratedReference = await one.simulation.simulate(ORG, calibrated);
    expect(calibratedReference.correlations).toHaveLength(2);
    for (const other of [
      await two.simulation.simulate(ORG, calibrated),
      await fallback.simulation.simulate(ORG, calibrated),
    ])
      expect(numbers(other as never)).toBe(numbers(calibratedReference as never));
  });

  it('matches closed forms: sums of uniforms, triangular and normal quantiles, a known best action', async () => {
    const { simulation } = services(await boot({ ENGINE_POOL_SIZE: '1' }));
    const runs = 400_000;
    // Irwin–Hall with n = 3: mean 1.5, variance 3/12, F(x) = x^3/6 on [0, 1].
    const sum = await simulation.simulate(ORG, {
      runs,
      seed: 1,
      scenario: {
        variables: { a: { low: 0, high: 1 }, b: { low: 0, high: 1 }, c: { low: 0, high: 1 } },
        objective: 'maximize_net_value',
      },
    });
    const proceed = sum.actions[0];
    const q05 = Math.cbrt(0.3);
    expect(Math.abs(proceed.mean - 1.5)).toBeLessThan(5 * (0.5 / Math.sqrt(runs)));
    expect(proceed.std_dev).toBeCloseTo(0.5, 2);
    expect(proceed.std_error).toBeCloseTo(proceed.std_dev / Math.sqrt(runs), 10);
    expect(proceed.p5).toBeCloseTo(q05, 2);
    expect(proceed.p50).toBeCloseTo(1.5, 2);
    expect(proceed.p95).toBeCloseTo(3 - q05, 2);
    expect(proceed.min).toBeGreaterThanOrEqual(0);
    expect(proceed.max).toBeLessThanOrEqual(3);
    expect(sum.sensitivity.map((s) => Math.round(s.correlation * 100) / 100)).toEqual([0.58, 0.58, 0.58]);

    // Triangular(0, 10, mode 2): p5 = 1, p95 = 8. Normal with p5 = 10 and p95 = 30: mean 20, p50 20.
    const shapes = await simulation.simulate(ORG, {
      runs,
      seed: 2,
      scenario: {
        variables: {
          t: { low: 0, high: 10, distribution: 'triangular', mode: 2 },
          n: { low: 10, high: 30, distribution: 'normal' },
        },
        objective: 'maximize_value',
        actions: [
          { name: 'tri', model: 't' },
          { name: 'norm', model: 'n' },
        ],
      },
    });
    const [tri, norm] = shapes.actions;
    expect(tri.p5).toBeCloseTo(1, 1);
    expect(tri.p95).toBeCloseTo(8, 1);
    expect(tri.mean).toBeCloseTo(4, 1);
    expect(norm.p5).toBeCloseTo(10, 0);
    expect(norm.p95).toBeCloseTo(30, 0);
    expect(norm.p50).toBeCloseTo(20, 1);
    expect(norm.std_dev).toBeCloseTo(20 / (2 * 1.6448536269514722), 1);
    expect(shapes.recommended_action).toBe('norm');

    // "better" dominates "base" by exactly 0.5 on every shared draw.
    const known = await simulation.simulate(ORG, {
      runs: 10_000,
      seed: 3,
      scenario: {
        variables: { x: { low: 0, high: 1 } },
        objective: 'maximize_net_value',
        actions: [
          { name: 'base', model: 'x' },
          { name: 'better', model: 'x + 0.5' },
        ],
      },
    });
    expect(known.recommended_action).toBe('better');
    expect(known.confidence).toBe(1);
    expect(known.evpi).toBe(0);
    expect(known.actions[0].expected_loss).toBeCloseTo(0.5, 12);
    expect(known.actions[1].mean - known.actions[0].mean).toBeCloseTo(0.5, 12);
  });

  it('records each run with its seed, and picks a seed when none is given', async () => {
    const { simulation } = services(await boot({ ENGINE_POOL_SIZE: '1' }));
    const body = {
      runs: 1000,
      scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_net_value' },
    };
    const first = await simulation.simulate(ORG, body);
    const second = await simulation.simulate(ORG, body);
    expect(first.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(Number.isSafeInteger(first.seed)).toBe(true);
    expect(first.seed).not.toBe(second.seed);
    // Seeds are drawn from the CSPRNG a batch at a time: more than one batch, all distinct and exact.
    const picked = Array.from({ length: 300 }, () => storedSimulation(parseSimulation(body), true).seed);
    expect(new Set(picked).size).toBe(300);
    expect(picked.every((seed) => Number.isSafeInteger(seed))).toBe(true);
    const replay = await simulation.simulate(ORG, { ...body, seed: first.seed });
    expect(numbers(replay as never)).toBe(numbers(first as never));

    const stored = await simulation.findRun(ORG, first.run_id);
    expect(stored).toMatchObject({
      orgId: ORG,
      seed: String(first.seed),
      runs: 1000,
      recommendedAction: first.recommended_action,
      expectedValue: first.expected_value,
      confidence: first.confidence,
      engineMode: 'pool',
    });
    expect(stored!.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await simulation.findRun(ORG, replay.run_id))!.requestHash).toBe(stored!.requestHash);
    expect(await simulation.findRun('org_other', first.run_id)).toBeNull();

    const big = await simulation.simulate(ORG, { ...body, seed: '18446744073709551615' });
    expect(big.seed).toBe('18446744073709551615');
  });

  it('retries once on another worker when a worker is killed mid-request', async () => {
    const t = await boot({ ENGINE_POOL_SIZE: '2' });
    const { engine, simulation } = services(t);
    const body = {
      runs: 2_000_000,
      seed: 99,
      scenario: {
        variables: Object.fromEntries(
          Array.from({ length: 8 }, (_, i) => [`v${i}`, { low: 0, high: i + 1 }]),
        ),
        objective: 'maximize_net_value',
      },
    };
    const pending = simulation.simulate(ORG, body);
    const workers = servingWorkersUnder(t.dataDir);
    expect(workers).toHaveLength(2);
    for (let i = 0; i < 250 && engine.status().pool.busy === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(engine.status().pool.busy).toBe(1);
    const busy = await runningOneOf(workers);
    expect(busy).toEqual(expect.any(Number));
    process.kill(busy!, 'SIGKILL');
    const answered = await pending;
    expect(answered.engine_mode).toBe('pool');
    expect(engine.status().pool.restarts).toBe(1);
    const again = await simulation.simulate(ORG, body);
    expect(numbers(again as never)).toBe(numbers(answered as never));
    expect(servingWorkersUnder(t.dataDir)).not.toContain(busy);
  });

  it('answers engine_timeout when a computation overruns ENGINE_COMPUTE_TIMEOUT_S', async () => {
    const { engine, simulation } = services(
      await boot({ ENGINE_POOL_SIZE: '1', ENGINE_COMPUTE_TIMEOUT_S: '0.05' }),
    );
    const heavy = {
      runs: 10_000_000,
      scenario: {
        variables: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`v${i}`, { low: 0, high: 1 }])),
        objective: 'maximize_net_value',
      },
    };
    expect(await codeOf(simulation.simulate(ORG, heavy))).toBe('engine_timeout');
    expect(await codeOf(simulation.simulate(ORG, { ...heavy, runs: 100 }))).toBe('ok');
    expect(engine.status().mode).toBe('pool');
  });

  it('refuses invalid requests before the engine with every problem listed', async () => {
    const { simulation } = services(await boot({ ENGINE_POOL_SIZE: '1' }));
    const error = await simulation
      .simulate(ORG, {
        runs: 0,
        scenario: { variables: { x: { low: 2, high: 1 } }, objective: 'maximize_net_value', model: 'x + y' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details).toEqual([
      { field: 'runs', problem: 'must be between 1 and 10000000' },
      { field: 'scenario.variables.x.high', problem: 'must be greater than or equal to low' },
      { field: 'scenario.model', problem: "unknown name 'y' at position 4" },
    ]);
  });
});

describe('engine failure paths with fake binaries', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((t) => t.close()));
  });
  const boot = async (fake: string, env: Record<string, string> = {}): Promise<TestApp> => {
    const t = await startTestApp({
      ENGINE_BINARY_PATH: join(FAKES, fake),
      ENGINE_WORKER_READY_TIMEOUT_S: '0.5',
      ENGINE_PROBE_ATTEMPTS: '2',
      ...env,
    });
    apps.push(t);
    return t;
  };
  const simple = {
    runs: 1000,
    seed: 5,
    scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_net_value' },
  };

  it('degrades to subprocess_fallback when server mode never creates its socket and fallback is allowed', async () => {
    const t = await boot('no-socket.sh', { RUNTIME_FALLBACK_MODE: 'allow' });
    const engine = t.app.get(EngineService);
    expect(engine.status()).toMatchObject({ mode: 'subprocess_fallback', version: '1.0.0' });
    const result = await simulationOf(t).simulate(ORG, simple);
    expect(result.engine_mode).toBe('subprocess_fallback');
    expect(result.actions[0].name).toBe('proceed');
  });

  it('refuses to start when server mode fails and the fallback is denied (engine_pool_required_unavailable)', async () => {
    const settings: Record<string, string>[] = [
      { RUNTIME_FALLBACK_MODE: 'deny' },
      { RUNTIME_FALLBACK_MODE: 'allow', ENGINE_ALLOW_SUBPROCESS_FALLBACK: 'false' },
      { RUNTIME_FALLBACK_MODE: 'auto', NODE_ENV: 'production' },
    ];
    for (const env of settings) {
      const refused = await boot('serve-exits.sh', env).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StartupError);
      expect(refused).toMatchObject({
        event: 'engine_pool_required_unavailable',
        fields: expect.objectContaining({ runtime_fallback_mode: env.RUNTIME_FALLBACK_MODE }),
      });
    }
  });

  it('answers engine_unavailable with the engine_mode when neither path works but the fallback is allowed', async () => {
    const t = await boot('broken-compute.sh', { RUNTIME_FALLBACK_MODE: 'allow' });
    const refused = await simulationOf(t)
      .simulate(ORG, simple)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(toErrorBody(refused as AppError, 'req_1').error).toMatchObject({
      code: 'engine_unavailable',
      engine_mode: 'unavailable',
    });
  });

  it('does not serve an engine that computes wrong numbers, on either path', async () => {
    const t = await boot('broken-compute.sh', { RUNTIME_FALLBACK_MODE: 'allow' });
    expect(t.app.get(EngineService).status().mode).toBe('unavailable');
    expect(await codeOf(simulationOf(t).simulate(ORG, simple))).toBe('engine_unavailable');
  });

  it('kills a worker that ignores its deadline (504), replaces it, and answers engine_busy when none is free', async () => {
    const t = await boot('hang.sh', {
      ENGINE_POOL_SIZE: '1',
      ENGINE_WORKER_READY_TIMEOUT_S: '10',
      ENGINE_COMPUTE_TIMEOUT_S: '1',
      ENGINE_ACQUIRE_TIMEOUT_S: '0.2',
    });
    const engine = t.app.get(EngineService);
    expect(engine.status().mode).toBe('pool');
    const simulation = simulationOf(t);
    const hanging = { ...simple, scenario: { ...simple.scenario, variables: { hang: { low: 0, high: 1 } } } };
    const stuck = simulation.simulate(ORG, hanging);
    expect(await codeOf(simulation.simulate(ORG, simple))).toBe('engine_busy');
    expect(await codeOf(stuck)).toBe('engine_timeout');
    expect(engine.status().pool.restarts).toBe(1);
    const live = t.app.get(MetricsService).registry.getSingleMetric('engine_workers_live')!;
    // A replacement counts as live once it has said hello; with none busy, it is idle.
    const isIdle = async () =>
      engine.status().pool.busy === 0 && ((await live.get()).values[0]?.value ?? 0) >= 1;
    for (let i = 0; i < 250 && !(await isIdle()); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const after = await simulation.simulate(ORG, simple);
    expect(after.engine_mode).toBe('pool');
  });
});
