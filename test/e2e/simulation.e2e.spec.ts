import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

const gitHead = (): string =>
  execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

jest.setTimeout(60_000);

const body = {
  runs: 5000,
  seed: 2024,
  scenario: {
    variables: {
      revenue: { low: 100, high: 200 },
      cost: { low: 80, high: 160, distribution: 'triangular', mode: 90 },
    },
    objective: 'maximize_net_value',
    model: 'revenue - cost',
  },
};

describe('POST /v1/simulate and GET /v1/infrastructure over HTTP', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ ENGINE_POOL_SIZE: '1' });
    key = (await signupAccount(t, { name: 'Sim' })).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a credential', async () => {
    for (const [method, path] of [
      ['POST', '/v1/simulate'],
      ['GET', '/v1/infrastructure'],
    ]) {
      const res = await t.request(method, path, method === 'POST' ? { body } : {});
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('authentication_required');
    }
  });

  it('answers the result with engine_mode, run_id and the echoed seed', async () => {
    const res = await t.request('POST', '/v1/simulate', { body, token: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      engine_mode: 'pool',
      runs: 5000,
      seed: 2024,
      objective: 'maximize_net_value',
      recommended_action: expect.stringMatching(/^(proceed|do_nothing)$/),
    });
    expect(res.body.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(res.body.actions.map((a: { name: string }) => a.name)).toEqual(['proceed', 'do_nothing']);
    const again = await t.request('POST', '/v1/simulate', { body, token: key });
    expect(again.body.expected_value).toBe(res.body.expected_value);
    expect(again.body.run_id).not.toBe(res.body.run_id);
  });

  it('answers 422 validation_failed with every problem and its position', async () => {
    const res = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs: 20_000_000, scenario: { ...body.scenario, model: 'revenue - costs' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      { field: 'runs', problem: 'must be between 1 and 10000000' },
      { field: 'scenario.model', problem: "unknown name 'costs' at position 10" },
    ]);
  });

  it('reports the engine on /v1/infrastructure and the pool in /metrics', async () => {
    const res = await t.request('GET', '/v1/infrastructure', { token: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      engine_mode: 'pool',
      engine_version: expect.any(String),
      last_health_check: expect.any(String),
      pool: { size: 1, busy: 0, queued: 0, restarts: 0 },
      runtime_library: expect.objectContaining({ status: expect.any(String) }),
      license: { edition: expect.any(String), status: expect.any(String) },
      node_version: process.version,
      // A checkout is no package: it says so, with its git HEAD, and has no SBOM.
      build: { package_version: 'development', source_commit: gitHead(), sbom_path: null, sbom_sha256: null },
      tls: { mode: 'off', origin: null, subject: null, fingerprint_sha256: null, expires_at: null },
    });
    expect(res.body.build.source_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.node_version).toMatch(/^v24\./);
    expect(new Date(res.body.last_health_check).toISOString()).toBe(res.body.last_health_check);
    const metrics = await t.request('GET', '/metrics');
    expect(metrics.text).toContain('engine_workers_busy 0');
    expect(metrics.text).toMatch(/engine_compute_seconds_count\{path="pool"\} [1-9]/);
    expect(metrics.text).toContain('engine_mode{mode="pool"} 1');
  });
});

describe('engine routes when the engine is unavailable', () => {
  it('answers 503 engine_unavailable while the rest of the daemon serves', async () => {
    const t = await startTestApp({
      ENGINE_BINARY_PATH: join(REPO_ROOT, 'test', 'fixtures', 'engine', 'broken-compute.sh'),
      ENGINE_PROBE_ATTEMPTS: '1',
      RUNTIME_FALLBACK_MODE: 'allow',
    });
    try {
      const key = (await signupAccount(t, { name: 'Sim' })).apiKey;
      const res = await t.request('POST', '/v1/simulate', { body, token: key });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('engine_unavailable');
      expect(res.body.error.engine_mode).toBe('unavailable');
      expect(res.headers.get('retry-after')).toBe('30');
      const infra = await t.request('GET', '/v1/infrastructure', { token: key });
      expect(infra.body).toMatchObject({ engine_mode: 'unavailable', engine_version: null });
    } finally {
      await t.close();
    }
  });
});

describe.each([
  ['pool', { ENGINE_POOL_SIZE: '1' }],
  ['subprocess_fallback', { ENGINE_POOL_SIZE: '0', RUNTIME_FALLBACK_MODE: 'allow' }],
])('non-finite simulations on the %s path', (mode, env) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(env);
    key = (await signupAccount(t, { name: 'Sim' })).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  const simulate = (runs: number, scenario: Record<string, unknown>) =>
    t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs, seed: 7, scenario: { objective: 'maximize_net_value', ...scenario } },
    });

  it.each([10, 10_000])('refuses ranges in [1e308, 1.7e308] with %i runs', async (runs) => {
    const res = await simulate(runs, { variables: { x: { low: 1e308, high: 1.7e308 } } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      { field: 'scenario.variables.x.low', problem: 'must be between -1e150 and 1e150' },
      { field: 'scenario.variables.x.high', problem: 'must be between -1e150 and 1e150' },
    ]);
  });

  it.each([
    ['0/0', 10],
    ['0/0', 10_000],
    ['exp(1000)', 10],
    ['exp(1000)', 10_000],
  ])('refuses the constant model %s with %i runs', async (model, runs) => {
    const res = await simulate(runs, { variables: { x: { low: 1, high: 2 } }, model });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      {
        field: 'scenario.model',
        problem: expect.stringContaining("evaluates to a non-finite number for action 'proceed' at run 0"),
      },
    ]);
  });

  it.each([10, 10_000])('refuses finite values whose statistics overflow, with %i runs', async (runs) => {
    const spread = await simulate(runs, { variables: { x: { low: 5e149, high: 1e150 } }, model: 'x * x' });
    expect(spread.status).toBe(422);
    expect(spread.body.error.details).toEqual([
      { field: 'scenario.model', problem: expect.stringContaining('are too large') },
    ]);
    const loss = await simulate(runs, {
      variables: { x: { low: 1e150, high: 1e150 } },
      actions: [
        { name: 'a', model: 'x * x * 1e7' },
        { name: 'b', model: '-x * x * 1e7' },
      ],
    });
    expect(loss.status).toBe(422);
    expect(loss.body.error.details).toEqual([
      {
        field: 'scenario.actions[1].model',
        problem: expect.stringContaining('actions[1].expected_loss overflows a double'),
      },
    ]);
  });

  it('still answers the same numbers for a valid request at the bound', async () => {
    const scenario = { variables: { x: { low: -1e150, high: 1e150 } } };
    const first = await simulate(1000, scenario);
    const second = await simulate(1000, scenario);
    expect(first.status).toBe(200);
    expect(first.body.engine_mode).toBe(mode);
    expect(Number.isFinite(first.body.expected_value)).toBe(true);
    expect(second.body.actions).toEqual(first.body.actions);
  });
});
