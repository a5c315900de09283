import { signupAccount } from '../factories/accounts';
import { pushTrigger, stockDataset } from '../factories/triggers';
import { startTestApp, TestApp } from '../support/test-app';

/** An array where the body needs an object is a client mistake: 422 naming the field, never a 500. */
describe('arrays given where an object is expected', () => {
  let t: TestApp;
  let token: string;
  let datasetId: string;

  beforeAll(async () => {
    t = await startTestApp({ ENGINE_POOL_SIZE: '1' });
    token = (await signupAccount(t)).apiKey;
    datasetId = await stockDataset(t, token, [80, 120]);
  });
  afterAll(() => t.close());

  const variables = { price: { low: 8, high: 12 } };
  const simulation = (scenario: Record<string, unknown>) => ({
    runs: 100,
    scenario: { objective: 'maximize_net_value', model: 'price', variables, ...scenario },
  });
  const SHAPES: [string, Record<string, unknown>, string][] = [
    [
      'scenario.actions: [[]]',
      { actions: [[]] },
      'scenario.actions[0]: must be an object {name, model?, set?}',
    ],
    [
      'scenario.variables: {a: []}',
      { variables: { ...variables, a: [] } },
      'scenario.variables.a: must be an object {low, high, distribution?, mode?}',
    ],
    [
      'actions[].set: {price: []}',
      { actions: [{ name: 'go', set: { price: [] } }] },
      'scenario.actions[0].set.price: must be a number or an object {low, high, distribution?, mode?}',
    ],
  ];
  const fieldsOf = (body: any): string[] =>
    ((body?.error?.details ?? []) as { field: string; problem: string }[]).map(
      (detail) => `${detail.field}: ${detail.problem}`,
    );

  it.each(SHAPES)('POST /v1/simulate refuses %s', async (_, scenario, field) => {
    const res = await t.request('POST', '/v1/simulate', { body: simulation(scenario), token });
    expect({ status: res.status, code: res.body.error?.code, fields: fieldsOf(res.body) }).toEqual({
      status: 422,
      code: 'validation_failed',
      fields: [field],
    });
  });

  it.each(SHAPES)('POST /v1/jobs refuses %s', async (_, scenario, field) => {
    const res = await t.request('POST', '/v1/jobs', { body: { request: simulation(scenario) }, token });
    expect({ status: res.status, code: res.body.error?.code, fields: fieldsOf(res.body) }).toEqual({
      status: 422,
      code: 'validation_failed',
      fields: [`request.${field}`],
    });
  });

  it.each(SHAPES)('POST /v1/triggers refuses %s', async (_, scenario, field) => {
    const res = await t.request('POST', '/v1/triggers', {
      body: pushTrigger({ simulation: simulation(scenario) }),
      token,
    });
    expect({ status: res.status, code: res.body.error?.code, fields: fieldsOf(res.body) }).toEqual({
      status: 422,
      code: 'validation_failed',
      fields: [`simulation.${field}`],
    });
  });

  it('PUT /v1/data/{id}/formulas refuses formulas: [[]]', async () => {
    const res = await t.request('PUT', `/v1/data/${datasetId}/formulas`, { body: { formulas: [[]] }, token });
    expect({ status: res.status, code: res.body.error?.code, fields: fieldsOf(res.body) }).toEqual({
      status: 422,
      code: 'validation_failed',
      fields: ['formulas[0]: must be an object {name, expression}'],
    });
  });
});
