import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

jest.setTimeout(60_000);

const runs = 40_000;
const variables = {
  price: { distribution: 'gamma', params: { shape: 4, scale: 2.5 } },
  demand: { distribution: 'weibull', params: { shape: 2, scale: 100 } },
  cost: { distribution: 'exponential', params: { rate: 0.5 } },
  returns: { distribution: 'empirical', values: [0, 1, 1, 2, 3, 5, 8] },
};
const actions = [
  { name: 'price', model: 'price' },
  { name: 'demand', model: 'demand' },
  { name: 'cost', model: 'cost' },
  { name: 'returns', model: 'returns' },
];

describe('POST /v1/simulate with parametric, empirical and correlated variables over HTTP', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ ENGINE_POOL_SIZE: '1' });
    key = (await signupAccount(t, { name: 'Families' })).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it('draws gamma, weibull, exponential and empirical variables with their analytic means', async () => {
    const res = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs, seed: 5, scenario: { variables, objective: 'maximize_value', actions } },
    });
    expect(res.status).toBe(200);
    const byName = new Map<string, { mean: number }>(
      (res.body.actions as { name: string; mean: number }[]).map((a) => [a.name, a]),
    );
    const values = variables.returns.values;
    const empiricalMean = values.reduce((s, v) => s + v, 0) / values.length;
    const empiricalSd = Math.sqrt(values.reduce((s, v) => s + (v - empiricalMean) ** 2, 0) / values.length);
    const weibullMean = (100 * Math.sqrt(Math.PI)) / 2; // scale * Γ(1 + 1/2)
    const weibullSd = 100 * Math.sqrt(1 - Math.PI / 4);
    const expected: [string, number, number][] = [
      ['price', 10, Math.sqrt(4) * 2.5],
      ['demand', weibullMean, weibullSd],
      ['cost', 2, 2],
      ['returns', empiricalMean, empiricalSd],
    ];
    for (const [name, mean, sd] of expected) {
      expect(Math.abs(byName.get(name)!.mean - mean)).toBeLessThan((3 * sd) / Math.sqrt(runs));
    }
    expect(res.body.correlations).toBeUndefined();
  });

  it('imposes rank correlations, keeps each marginal and reports the achieved Spearman', async () => {
    const correlations = [
      { a: 'price', b: 'demand', rank: -0.6 },
      { a: 'cost', b: 'returns', rank: 0.4 },
    ];
    const plain = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs, seed: 9, scenario: { variables, objective: 'maximize_value', actions } },
    });
    const res = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs, seed: 9, scenario: { variables, objective: 'maximize_value', actions, correlations } },
    });
    expect(res.status).toBe(200);
    expect(res.body.correlations_adjusted).toBe(false);
    const se = 1 / Math.sqrt(runs - 1);
    expect(res.body.correlations).toHaveLength(2);
    for (const [i, c] of correlations.entries()) {
      const got = res.body.correlations[i] as { a: string; b: string; target: number; achieved: number };
      expect(got).toMatchObject({ a: c.a, b: c.b, target: c.rank });
      // Ties of the empirical sample cap its rank correlation a little below the target.
      expect(Math.abs(got.achieved - c.rank)).toBeLessThan(c.a === 'cost' ? 0.05 : 3 * se);
    }
    // Same draws, re-paired: every order statistic of every variable is unchanged.
    for (const [i, a] of (res.body.actions as Record<string, number>[]).entries()) {
      const p = plain.body.actions[i] as Record<string, number>;
      for (const key of ['min', 'max', 'p5', 'p50', 'p95']) expect(a[key]).toBe(p[key]);
    }
  });

  it('answers 422 correlation_matrix_invalid naming the pairs, or adjusts when asked', async () => {
    const correlations = [
      { a: 'price', b: 'demand', rank: 0.9 },
      { a: 'demand', b: 'cost', rank: 0.9 },
      { a: 'price', b: 'cost', rank: -0.9 },
    ];
    const scenario = { variables, objective: 'maximize_value', actions, correlations };
    const refused = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs: 1000, seed: 1, scenario },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('correlation_matrix_invalid');
    const fields = (refused.body.error.details as { field: string; problem: string }[]).map((d) => d.field);
    expect(fields).toContain('scenario.correlations[2]');
    // A job would only fail when it ran: it is refused when submitted, with the same details.
    const job = await t.request('POST', '/v1/jobs', {
      token: key,
      body: { request: { runs: 1000, scenario } },
    });
    expect(job.status).toBe(422);
    expect(job.body.error.code).toBe('correlation_matrix_invalid');
    expect(job.body.error.details).toEqual(refused.body.error.details);
    const adjusted = await t.request('POST', '/v1/simulate', {
      token: key,
      body: { runs: 1000, seed: 1, scenario: { ...scenario, adjust_correlations: true } },
    });
    expect(adjusted.status).toBe(200);
    expect(adjusted.body.correlations_adjusted).toBe(true);
    for (const c of adjusted.body.correlations as { adjusted: number }[]) {
      expect(Math.abs(c.adjusted)).toBeLessThan(0.9);
    }
  });

  it('gives a job the same numbers as /v1/simulate for the same seed, correlations included', async () => {
    const request = {
      runs: 10_000,
      seed: 77,
      scenario: {
        variables,
        objective: 'maximize_value',
        actions,
        correlations: [{ a: 'price', b: 'demand', rank: 0.5 }],
      },
    };
    const direct = await t.request('POST', '/v1/simulate', { token: key, body: request });
    expect(direct.status).toBe(200);
    const submitted = await t.request('POST', '/v1/jobs', { token: key, body: { request } });
    expect(submitted.status).toBe(202);
    const job = await waitUntil(
      async () => {
        const res = await t.request('GET', `/v1/jobs/${submitted.body.job_id}`, { token: key });
        return ['succeeded', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
      },
      20000,
      'the job to finish',
    );
    expect(job.status).toBe('succeeded');
    expect(job.result.actions).toEqual(direct.body.actions);
    expect(job.result.correlations).toEqual(direct.body.correlations);
  });

  it('lists the problems of bad parameters and correlations in one 422', async () => {
    const res = await t.request('POST', '/v1/simulate', {
      token: key,
      body: {
        scenario: {
          variables: {
            g: { distribution: 'gamma', params: { shape: 0, scale: 1 } },
            w: { distribution: 'weibull', params: { shape: 1 } },
            e: { distribution: 'empirical', values: [] },
          },
          objective: 'maximize_value',
          correlations: [{ a: 'g', b: 'nope', rank: 2 }],
          adjust_correlations: 'yes',
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    const problems = Object.fromEntries(
      (res.body.error.details as { field: string; problem: string }[]).map((d) => [d.field, d.problem]),
    );
    expect(problems['scenario.variables.g.params']).toBe('shape must be greater than 0');
    expect(problems['scenario.variables.w.params']).toMatch(/^scale is required/);
    expect(problems['scenario.variables.e.values']).toMatch(/1 to 1000000 numbers/);
    expect(problems['scenario.correlations[0].b']).toBe("unknown variable 'nope'");
    expect(problems['scenario.correlations[0].rank']).toBe('must be between -1 and 1');
    expect(problems['scenario.adjust_correlations']).toBe('must be true or false');
  });
});
