import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';
import { pushTrigger } from '../factories/triggers';

jest.setTimeout(90_000);

/**
 * Families the engine draws by parameters (gamma, weibull, exponential, normal and lognormal fits, empirical
 * samples) and rank correlations come with the engine families of issue 38; until that engine is in the tree these
 * cases are skipped (the families DTO is its mark).
 */
const ENGINE_HAS_FAMILIES = existsSync(join(REPO_ROOT, 'src/modules/simulation/families.dto.ts'));
const withFamilies = ENGINE_HAS_FAMILIES ? it : it.skip;

const ROWS = 400;
/** units: a skewed, deterministic spread; price falls as units rise; region alternates. */
const units = (i: number): number => 20 + ((i * 7919) % 97) + ((i * 13) % 11) ** 2 / 4;
const price = (i: number): number => 30 - units(i) / 8 + ((i * 31) % 9) / 10;
const CSV = [
  'order_id,region,units,price,note',
  ...Array.from(
    { length: ROWS },
    (_, i) => `${i + 1},${i % 2 === 0 ? 'west' : 'east'},${units(i)},${price(i)},n${i}`,
  ),
].join('\n');

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('simulation variables from a dataset over HTTP', () => {
  let t: TestApp;
  let token: string;
  let other: string;
  let datasetId: string;

  beforeAll(async () => {
    t = await startTestApp({ ENGINE_POOL_SIZE: '1' });
    token = (await signupAccount(t, { name: 'Fit' })).apiKey;
    other = (await signupAccount(t, { name: 'Fit' })).apiKey;
    const connector = await t.request('POST', '/v1/connectors', {
      token,
      body: { name: 'orders', connector_type: 'file', config: { file_type: 'csv', content: CSV } },
    });
    expect(connector.status).toBe(201);
    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'file',
        dataset_name: 'orders',
        connection_id: connector.body.id,
        visibility: 'private',
      },
    });
    expect(connected.body.status).toBe('ready');
    datasetId = connected.body.dataset_id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('fits a column: the normal candidate is the mean and population sd of the rows under where', async () => {
    const res = await t.request('POST', `/v1/data/${datasetId}/fit`, {
      token,
      body: { column: 'units', where: [{ column: 'region', op: 'eq', value: 'west' }] },
    });
    expect(res.status).toBe(200);
    const west = Array.from({ length: ROWS }, (_, i) => i)
      .filter((i) => i % 2 === 0)
      .map(units);
    const m = mean(west);
    const sd = Math.sqrt(mean(west.map((x) => (x - m) ** 2)));
    expect(res.body).toMatchObject({
      dataset_id: datasetId,
      dataset_name: 'orders',
      version: 1,
      n: 200,
      sampled: false,
    });
    const normal = res.body.candidates.find((c: { family: string }) => c.family === 'normal');
    expect(normal.params.mean).toBeCloseTo(m, 9);
    expect(normal.params.sd).toBeCloseTo(sd, 9);
    expect(res.body.best).toEqual(res.body.candidates[0]);
  });

  it('answers 404 for another organization, 422 for text and for too few values', async () => {
    const foreign = await t.request('POST', `/v1/data/${datasetId}/fit`, {
      token: other,
      body: { column: 'units' },
    });
    const unknown = await t.request('POST', '/v1/data/ds_000000000000000000000000/fit', {
      token,
      body: { column: 'units' },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'dataset_not_found']);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'dataset_not_found']);
    expect(foreign.body.error.message).toBe(unknown.body.error.message);
    const text = await t.request('POST', `/v1/data/${datasetId}/fit`, { token, body: { column: 'note' } });
    expect([text.status, text.body.error.code]).toEqual([422, 'column_not_numeric']);
    const few = await t.request('POST', `/v1/data/${datasetId}/fit`, {
      token,
      body: { column: 'units', where: [{ column: 'order_id', op: 'lte', value: 9 }] },
    });
    expect([few.status, few.body.error.code]).toEqual([422, 'insufficient_data']);
    const shape = await t.request('POST', `/v1/data/${datasetId}/fit`, {
      token,
      body: { column: 'units', families: ['cauchy'] },
    });
    expect([shape.status, shape.body.error.details[0].field]).toEqual([422, 'families[0]']);
  });

  const triangularBody = (seed: number) => ({
    runs: 20_000,
    seed,
    scenario: {
      variables: {
        demand: {
          from: {
            dataset_id: datasetId,
            column: 'units',
            where: [{ column: 'region', op: 'eq', value: 'west' }],
          },
          distribution: 'triangular',
        },
        fixed_cost: { low: -40, high: -40 },
      },
      objective: 'maximize_net_value',
      model: 'demand + fixed_cost',
    },
  });

  it('draws a fitted triangular variable, reports its provenance, and repeats bit for bit', async () => {
    const first = await t.request('POST', '/v1/simulate', { token, body: triangularBody(7) });
    expect(first.status).toBe(200);
    const fit = await t.request('POST', `/v1/data/${datasetId}/fit`, {
      token,
      body: {
        column: 'units',
        where: [{ column: 'region', op: 'eq', value: 'west' }],
        families: ['triangular'],
      },
    });
    const params = fit.body.best.params as { min: number; mode: number; max: number };
    expect(first.body.inputs).toEqual({
      demand: {
        source: {
          dataset_id: datasetId,
          dataset_name: 'orders',
          version: 1,
          column: 'units',
          where: [{ column: 'region', op: 'eq', value: 'west' }],
          rows_used: 200,
          rows_matching: 200,
          sampled: false,
        },
        distribution: 'triangular',
        params,
        fit: { aic: fit.body.best.aic, ks_statistic: fit.body.best.ks_statistic },
      },
    });
    const proceed = first.body.actions.find((a: { name: string }) => a.name === 'proceed');
    const expected = (params.min + params.mode + params.max) / 3 - 40;
    expect(Math.abs(proceed.mean - expected)).toBeLessThan(3 * proceed.std_error);
    const audit = await t.request('GET', '/v1/audit-log?limit=50', { token });
    const read = audit.body.events.find(
      (e: { event: string; target: { id: string } | null }) =>
        e.event === 'datasets_read' && e.target?.id === first.body.run_id,
    );
    expect(read).toMatchObject({
      actor: { type: 'api_key' },
      target: { type: 'simulation_run', id: first.body.run_id },
      details: {
        datasets: `${datasetId}@1`,
        inputs: `demand=${datasetId}@1.units (200 rows)`,
        kind: 'interactive',
      },
    });
    const again = await t.request('POST', '/v1/simulate', { token, body: triangularBody(7) });
    const { run_id: _a, compute_ms: _b, ...firstNumbers } = first.body;
    const { run_id: _c, compute_ms: _d, ...againNumbers } = again.body;
    expect(againNumbers).toEqual(firstNumbers);
  });

  it('names the variable when its data cannot be read', async () => {
    const res = await t.request('POST', '/v1/simulate', {
      token: other,
      body: triangularBody(1),
    });
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      404,
      'dataset_not_found',
      [{ field: 'scenario.variables.demand.from', problem: 'The dataset was not found.' }],
    ]);
    const bad = await t.request('POST', '/v1/simulate', {
      token,
      body: {
        scenario: {
          variables: { demand: { from: { dataset_id: datasetId }, distribution: 'cauchy' } },
          objective: 'maximize_net_value',
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'scenario.variables.demand.distribution',
      'scenario.variables.demand.from.column',
    ]);
  });

  it('runs a job whose request reads a dataset, keeping the request as sent and the provenance in its result', async () => {
    const submitted = await t.request('POST', '/v1/jobs', { token, body: { request: triangularBody(11) } });
    expect(submitted.status).toBe(202);
    const job = await waitUntil(
      async () => {
        const res = await t.request('GET', `/v1/jobs/${submitted.body.job_id}`, { token });
        return ['succeeded', 'failed'].includes(res.body.status) ? res.body : undefined;
      },
      30_000,
      'the job to finish',
    );
    expect(job.status).toBe('succeeded');
    expect(job.result.inputs.demand.source).toMatchObject({ dataset_id: datasetId, rows_used: 200 });
    const direct = await t.request('POST', '/v1/simulate', { token, body: triangularBody(11) });
    expect(job.result.expected_value).toBe(direct.body.expected_value);
  });

  it('fires a trigger whose simulation reads a dataset, and audits what the fire read', async () => {
    const simulation = triangularBody(13);
    const created = await t.request('POST', '/v1/triggers', {
      token,
      body: pushTrigger({
        simulation: {
          ...simulation,
          scenario: {
            ...simulation.scenario,
            variables: { current_value: { low: 0, high: 0 }, ...simulation.scenario.variables },
            model: 'demand + fixed_cost - current_value',
          },
        },
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.simulation.scenario.variables.demand).toEqual(simulation.scenario.variables.demand);
    const fired = await t.request('POST', `/v1/triggers/${created.body.id}/fire`, {
      token,
      body: { current_value: 50 },
    });
    expect(fired.status).toBe(200);
    expect(fired.body.condition_met).toBe(true);
    const audit = await t.request('GET', '/v1/audit-log?limit=50', { token });
    expect(
      audit.body.events.find(
        (e: { event: string; target: { id: string } | null }) =>
          e.event === 'datasets_read' && e.target?.id === fired.body.run_id,
      ),
    ).toMatchObject({ actor: { type: 'system' }, details: { datasets: `${datasetId}@1` } });
  });

  withFamilies(
    'resamples a column (empirical): the simulated mean is the data mean within 3 standard errors',
    async () => {
      const res = await t.request('POST', '/v1/simulate', {
        token,
        body: {
          runs: 50_000,
          seed: 3,
          scenario: {
            variables: {
              demand: { from: { dataset_id: datasetId, column: 'units' }, distribution: 'empirical' },
            },
            objective: 'maximize_net_value',
          },
        },
      });
      expect(res.status).toBe(200);
      const proceed = res.body.actions.find((a: { name: string }) => a.name === 'proceed');
      const all = Array.from({ length: ROWS }, (_, i) => units(i));
      expect(Math.abs(proceed.mean - mean(all))).toBeLessThan(3 * proceed.std_error);
      expect(res.body.inputs.demand).toEqual({
        source: expect.objectContaining({ rows_used: ROWS, sampled: false }),
        distribution: 'empirical',
      });
    },
  );

  withFamilies('fits the best family and imposes the rank correlation estimated from the rows', async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => [units(i), price(i)]);
    const rank = (xs: number[]): number[] =>
      xs.map((x) => xs.filter((y) => y < x).length + (xs.filter((y) => y === x).length + 1) / 2);
    const a = rank(rows.map((r) => r[0]));
    const b = rank(rows.map((r) => r[1]));
    const c = (ROWS + 1) / 2;
    const rho =
      a.reduce((s, x, i) => s + (x - c) * (b[i] - c), 0) /
      Math.sqrt(a.reduce((s, x) => s + (x - c) ** 2, 0) * b.reduce((s, x) => s + (x - c) ** 2, 0));
    const res = await t.request('POST', '/v1/simulate', {
      token,
      body: {
        runs: 40_000,
        seed: 5,
        scenario: {
          variables: {
            demand: { from: { dataset_id: datasetId, column: 'units' }, distribution: 'fit' },
            price: { from: { dataset_id: datasetId, column: 'price' }, distribution: 'empirical' },
          },
          correlations_from_data: true,
          objective: 'maximize_net_value',
          model: 'demand * price',
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.correlations).toHaveLength(1);
    expect(res.body.correlations[0]).toMatchObject({ a: 'demand', b: 'price' });
    expect(res.body.correlations[0].target).toBeCloseTo(rho, 12);
    // The Spearman of 40,000 draws has a standard error under 1/sqrt(n − 1) ≈ 0.005.
    expect(Math.abs(res.body.correlations[0].achieved - rho)).toBeLessThan(3 * 0.005);
  });
});
