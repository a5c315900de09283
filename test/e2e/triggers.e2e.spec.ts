import { createApiKey, signupAccount, TestAccount } from '../factories/accounts';
import { pushTrigger, queryTrigger, stockDataset, TRIGGER_SIMULATION } from '../factories/triggers';
import { startTestApp, TestApp } from '../support/test-app';

describe('triggers: definitions over HTTP', () => {
  let t: TestApp;
  let owner: TestAccount;
  let other: TestAccount;
  let datasetId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signupAccount(t);
    other = await signupAccount(t);
    datasetId = await stockDataset(t, owner.apiKey, [80, 120]);
  });
  afterAll(() => t.close());

  const create = (body: unknown, token = owner.apiKey) => t.request('POST', '/v1/triggers', { body, token });
  const problems = (body: any): Record<string, string> =>
    Object.fromEntries(
      (body.error.details as { field: string; problem: string }[]).map((d) => [d.field, d.problem]),
    );

  it('creates a push trigger with its defaults and answers it by id', async () => {
    const res = await create(pushTrigger());
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^trg_/);
    expect(res.body).toMatchObject({
      name: 'reorder when stock is low',
      enabled: true,
      auto_execute: false,
      webhook_url: null,
      execution_webhook_url: null,
      condition: { source: { kind: 'push' }, operator: 'lt', threshold: 100, for_s: 0 },
      schedule: null,
      cooldown_s: 0,
      keep_firing_s: 0,
      execution_max_age_s: 900,
      plans: { reorder: [{ name: 'create_purchase_order', params: { quantity: 500 } }] },
      state: 'inactive',
      pending_since: null,
      last_evaluated_at: null,
      next_evaluation_at: null,
      last_fire_id: null,
    });
    expect(res.body.simulation).toMatchObject({ runs: 2000, seed: 7, scenario: TRIGGER_SIMULATION.scenario });
    const got = await t.request('GET', `/v1/triggers/${res.body.id}`, { token: owner.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('creates a query trigger whose first evaluation is due at once', async () => {
    const res = await create(queryTrigger(datasetId, { webhook_url: 'https://ops.example/hooks/fired' }));
    expect(res.status).toBe(201);
    expect(res.body.condition.source).toEqual({
      kind: 'query',
      dataset_id: datasetId,
      query: { select: ['stock'], limit: 1 },
      value: { column: 'stock', aggregate: 'first' },
    });
    expect(res.body.schedule).toEqual({ interval_s: 60, catch_up_window_s: 0 });
    expect(res.body.webhook_url).toBe('https://ops.example/hooks/fired');
    expect(Date.parse(res.body.next_evaluation_at)).toBeLessThanOrEqual(Date.now());
  });

  it('refuses bad conditions, schedules and URLs with a 422 that names each field', async () => {
    const res = await create(
      pushTrigger({
        condition: { source: { kind: 'push' }, operator: 'below', threshold: '5', for_s: -1 },
        schedule: { interval_s: 9 },
        webhook_url: 'ftp://ops.example/x',
        execution_webhook_url: 'not a url',
        cooldown_s: 1.5,
        plans: { reorder: [{ params: {} }] },
        colour: 'red',
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(problems(res.body)).toEqual({
      'condition.operator': 'must be one of gt, gte, lt, lte, eq, ne',
      'condition.threshold': 'must be a number',
      'condition.for_s': 'must be between 0 and 604800',
      'schedule.interval_s': 'must be between 10 and 604800',
      webhook_url: 'must use http or https',
      execution_webhook_url: 'must be an absolute URL',
      cooldown_s: 'must be an integer number of seconds',
      plans: "plan 'reorder', step 0: name must be a string of 1 to 100 characters",
      colour: expect.stringContaining('is not a known field; allowed fields are name, condition'),
    });
  });

  it('refuses a threshold that is not finite', async () => {
    const res = await t.request('POST', '/v1/triggers', {
      token: owner.apiKey,
      rawBody: JSON.stringify(pushTrigger()).replace('"threshold":100', '"threshold":1e999'),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(problems(res.body)).toEqual({
      'condition.threshold': 'is a number too large to represent (it reads as Infinity)',
    });
  });

  it('refuses a simulation that POST /v1/simulate refuses, with the same details under simulation.', async () => {
    const bad = { runs: 0, scenario: { variables: {}, objective: 'maximize_net_value' } };
    const direct = await t.request('POST', '/v1/simulate', { body: bad, token: owner.apiKey });
    const res = await create(pushTrigger({ simulation: bad }));
    expect(res.status).toBe(422);
    expect(direct.status).toBe(422);
    expect(res.body.error.details).toEqual(
      direct.body.error.details.map((d: any) => ({ field: `simulation.${d.field}`, problem: d.problem })),
    );
  });

  it('requires a schedule and the query fields for a query source, and refuses them on a push source', async () => {
    const noSchedule = queryTrigger(datasetId);
    delete noSchedule.schedule;
    expect(problems((await create(noSchedule)).body)).toEqual({ schedule: 'is required for a query source' });
    const bare = await create(
      pushTrigger({ condition: { source: { kind: 'query' }, operator: 'lt', threshold: 1 } }),
    );
    expect(problems(bare.body)).toMatchObject({
      'condition.source.dataset_id': 'is required for a query source',
      'condition.source.query': 'is required for a query source',
      'condition.source.value': 'is required for a query source',
    });
    const push = await create(
      pushTrigger({
        condition: { source: { kind: 'push', dataset_id: datasetId }, operator: 'lt', threshold: 1 },
      }),
    );
    expect(problems(push.body)).toEqual({
      'condition.source.dataset_id': 'is only allowed for a query source',
    });
  });

  it('checks the query when the trigger is saved: its dataset, its grammar and the value column', async () => {
    const foreign = await create(queryTrigger(datasetId), other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('dataset_not_found');
    const badColumn = queryTrigger(datasetId);
    (badColumn.condition as any).source.value = { column: 'price' };
    const res = await create(badColumn);
    expect(res.status).toBe(422);
    expect(Object.keys(problems(res.body))).toEqual(['condition.source.value.column']);
    const badQuery = queryTrigger(datasetId);
    (badQuery.condition as any).source.query = { select: ['nope'] };
    const grammar = await create(badQuery);
    expect(grammar.status).toBe(422);
    expect(grammar.body.error.details[0].field).toMatch(/^condition\.source\.query\./);
  });

  it('pages the list by cursor and keeps other organizations out', async () => {
    const mine = await t.request('GET', '/v1/triggers', { token: owner.apiKey });
    expect(mine.status).toBe(200);
    const ids: string[] = mine.body.triggers.map((x: any) => x.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const first = await t.request('GET', '/v1/triggers?limit=1', { token: owner.apiKey });
    expect(first.body.triggers.map((x: any) => x.id)).toEqual([ids[0]]);
    const second = await t.request('GET', `/v1/triggers?limit=1&cursor=${first.body.next_cursor}`, {
      token: owner.apiKey,
    });
    expect(second.body.triggers.map((x: any) => x.id)).toEqual([ids[1]]);
    const all = await t.request('GET', `/v1/triggers?limit=500`, { token: owner.apiKey });
    expect(all.body.next_cursor).toBeNull();
    const theirs = await t.request('GET', '/v1/triggers', { token: other.apiKey });
    expect(theirs.body).toEqual({ triggers: [], next_cursor: null });
    const peek = await t.request('GET', `/v1/triggers/${ids[0]}`, { token: other.apiKey });
    expect(peek.status).toBe(404);
    expect(peek.body.error.code).toBe('not_found');
  });

  it('patches fields, clears a URL with null, disables and re-enables', async () => {
    const created = await create(queryTrigger(datasetId, { webhook_url: 'https://ops.example/a' }));
    const id = created.body.id as string;
    const patch = (body: unknown) => t.request('PATCH', `/v1/triggers/${id}`, { body, token: owner.apiKey });
    const renamed = await patch({ name: 'renamed', webhook_url: null, cooldown_s: 600 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'renamed',
      webhook_url: null,
      cooldown_s: 600,
      state: 'inactive',
    });
    const off = await patch({ enabled: false });
    expect(off.body).toMatchObject({ enabled: false, state: 'disabled', next_evaluation_at: null });
    const on = await patch({ enabled: true });
    expect(on.body).toMatchObject({ enabled: true, state: 'inactive' });
    expect(on.body.next_evaluation_at).not.toBeNull();
    const bad = await patch({ schedule: { interval_s: 5 }, name: '' });
    expect(bad.status).toBe(422);
    expect(Object.keys(problems(bad.body)).sort()).toEqual(['name', 'schedule.interval_s']);
    const noSchedule = await patch({ schedule: null });
    expect(problems(noSchedule.body)).toEqual({ schedule: 'is required for a query source' });
    const missing = await t.request('PATCH', '/v1/triggers/trg_nope', { body: {}, token: owner.apiKey });
    expect(missing.status).toBe(404);
  });

  it('deletes a trigger; it is gone afterwards', async () => {
    const created = await create(pushTrigger());
    const id = created.body.id as string;
    const gone = await t.request('DELETE', `/v1/triggers/${id}`, { token: owner.apiKey });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ id, deleted: true });
    expect((await t.request('GET', `/v1/triggers/${id}`, { token: owner.apiKey })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/triggers/${id}`, { token: owner.apiKey })).status).toBe(404);
  });

  it('lets a viewer read but not write', async () => {
    const viewer = await createApiKey(t, owner.apiKey, { role: 'viewer' });
    expect((await t.request('GET', '/v1/triggers', { token: viewer.rawKey })).status).toBe(200);
    const res = await create(pushTrigger(), viewer.rawKey);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_role');
  });
});

describe('active scheduled triggers per organization (SERVICE_ORG_MAX_TRIGGERS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_ORG_MAX_TRIGGERS: '2' });
  });
  afterAll(() => t.close());

  it('refuses a third active scheduled trigger, by creation or by enabling, and counts nothing else', async () => {
    const owner = await signupAccount(t);
    const datasetId = await stockDataset(t, owner.apiKey, [80]);
    const create = (body: unknown, token = owner.apiKey) =>
      t.request('POST', '/v1/triggers', { body, token });
    for (let i = 0; i < 2; i++)
      expect((await create(queryTrigger(datasetId, { name: `s${i}` }))).status).toBe(201);

    const refused = await create(queryTrigger(datasetId, { name: 's2' }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toBe(
      'The organization already has 2 active scheduled triggers (SERVICE_ORG_MAX_TRIGGERS): disable or delete one first.',
    );
    expect((await create(pushTrigger())).status).toBe(201);
    const disabled = await create(queryTrigger(datasetId, { name: 'off', enabled: false }));
    expect(disabled.status).toBe(201);
    const enabling = await t.request('PATCH', `/v1/triggers/${disabled.body.id}`, {
      body: { enabled: true },
      token: owner.apiKey,
    });
    expect(enabling.status).toBe(409);

    const other = await signupAccount(t);
    const theirs = await stockDataset(t, other.apiKey, [80]);
    expect((await create(queryTrigger(theirs), other.apiKey)).status).toBe(201);
  });

  it('gives the last slots to exactly as many of many concurrent creations', async () => {
    const owner = await signupAccount(t);
    const datasetId = await stockDataset(t, owner.apiKey, [80]);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request('POST', '/v1/triggers', {
          body: queryTrigger(datasetId, { name: `c${i}` }),
          token: owner.apiKey,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409, 409, 409]);
  });
});
