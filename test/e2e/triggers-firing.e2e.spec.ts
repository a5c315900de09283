import { EntityManager } from '@mikro-orm/knex';
import { IdempotencyRecordSchema } from '../../src/modules/idempotency/idempotency-record.entity';
import { idempotencyRecordId } from '../../src/modules/idempotency/idempotency.service';
import { TriggerReader } from '../../src/modules/triggers/trigger-reader';
import { TriggerRepository } from '../../src/modules/triggers/trigger.repository';
import { signupAccount, TestAccount } from '../factories/accounts';
import { pushTrigger, queryTrigger, stockDataset } from '../factories/triggers';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const SPEC_FIRED_FIELDS = [
  'event',
  'trigger_id',
  'trigger_name',
  'condition_met',
  'current_value',
  'run_id',
  'recommended_action',
  'expected_value',
  'confidence',
];

describe('triggers: evaluation, fires and trigger.fired', () => {
  let t: TestApp;
  let owner: TestAccount;
  let receiver: Receiver;
  let datasetId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_WEBHOOK_RETRY_BASE_MS: '50',
    });
    owner = await signupAccount(t);
    datasetId = await stockDataset(t, owner.apiKey, [80, 120]);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const create = async (body: unknown): Promise<string> => {
    const res = await t.request('POST', '/v1/triggers', { body, token: owner.apiKey });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const fire = (id: string, body: unknown, headers?: Record<string, string>) =>
    t.request('POST', `/v1/triggers/${id}/fire`, { body, token: owner.apiKey, headers });
  const callsTo = (path: string) => receiver.requests.filter((r) => r.url === path);

  it('fires a push trigger: simulates with the value, records the fire and sends one signed trigger.fired', async () => {
    const id = await create(
      pushTrigger({
        webhook_url: `${receiver.url}/fired-push`,
        execution_webhook_url: `${receiver.url}/execute-push`,
        auto_execute: true,
      }),
    );
    const res = await fire(id, { current_value: 42 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      trigger_id: id,
      condition_met: true,
      current_value: 42,
      slot: `manual:${res.body.fire_id}`,
      execution_status: 'skipped_uncalibrated',
    });
    expect(res.body.fire_id).toMatch(/^fire_/);
    expect(res.body.run_id).toMatch(/^run_/);
    expect(['reorder', 'wait']).toContain(res.body.recommended_action);
    // current_value = 42 is bound into the models: reorder = 2·demand − 42 beats wait = 42 − demand.
    expect(res.body.recommended_action).toBe('reorder');
    expect(res.body.expected_value).toBeCloseTo(2 * 100 - 42, -1);

    const [call] = await waitUntil(() =>
      callsTo('/fired-push').length > 0 ? callsTo('/fired-push') : undefined,
    );
    const body = JSON.parse(call.body.toString());
    expect(Object.keys(body)).toEqual(expect.arrayContaining(SPEC_FIRED_FIELDS));
    expect(body).toMatchObject({
      event: 'trigger.fired',
      trigger_id: id,
      trigger_name: 'reorder when stock is low',
      condition_met: true,
      current_value: 42,
      run_id: res.body.run_id,
      recommended_action: res.body.recommended_action,
      expected_value: res.body.expected_value,
      confidence: res.body.confidence,
      fire_id: res.body.fire_id,
      execution_status: 'skipped_uncalibrated',
    });
    expect(call.headers['x-webhook-signature']).toMatch(/^sha256=/);
    expect(call.headers['x-webhook-event']).toBe('trigger.fired');
    expect(callsTo('/execute-push')).toHaveLength(0);
    const got = await t.request('GET', `/v1/triggers/${id}`, { token: owner.apiKey });
    expect(got.body.last_fire_id).toBe(res.body.fire_id);
  });

  it('answers condition_met false and sends nothing when the condition does not hold', async () => {
    const id = await create(pushTrigger({ webhook_url: `${receiver.url}/fired-quiet` }));
    const res = await fire(id, { current_value: 500 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      condition_met: false,
      current_value: 500,
      run_id: null,
      recommended_action: null,
      execution_status: null,
    });
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires.map((f: any) => f.fire_id)).toEqual([res.body.fire_id]);
    await new Promise((r) => setTimeout(r, 300));
    expect(callsTo('/fired-quiet')).toHaveLength(0);
  });

  it('refuses a push fire without a value (422) and a fire on a disabled trigger (409)', async () => {
    const id = await create(pushTrigger());
    const missing = await fire(id, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([
      { field: 'current_value', problem: 'is required for a push source' },
    ]);
    const notFinite = await t.request('POST', `/v1/triggers/${id}/fire`, {
      token: owner.apiKey,
      rawBody: '{"current_value": 1e999}',
      headers: { 'content-type': 'application/json' },
    });
    expect(notFinite.status).toBe(422);
    await t.request('PATCH', `/v1/triggers/${id}`, { body: { enabled: false }, token: owner.apiKey });
    const disabled = await fire(id, { current_value: 1 });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('conflict');
    expect((await fire('trg_missing', { current_value: 1 })).status).toBe(404);
  });

  it('treats every fire call as its own fire, and a retry with the same Idempotency-Key as the same one', async () => {
    const id = await create(pushTrigger());
    const first = await fire(id, { current_value: 10 }, { 'idempotency-key': 'fire-once' });
    const again = await fire(id, { current_value: 10 }, { 'idempotency-key': 'fire-once' });
    const other = await fire(id, { current_value: 10 });
    expect(again.body.fire_id).toBe(first.body.fire_id);
    expect(other.body.fire_id).not.toBe(first.body.fire_id);
    const fires = await t.request('GET', `/v1/triggers/${id}/fires?limit=1`, { token: owner.apiKey });
    expect(fires.body.fires.map((f: any) => f.fire_id)).toEqual([other.body.fire_id]);
    const rest = await t.request('GET', `/v1/triggers/${id}/fires?cursor=${fires.body.next_cursor}`, {
      token: owner.apiKey,
    });
    expect(rest.body).toEqual({
      fires: [expect.objectContaining({ fire_id: first.body.fire_id })],
      next_cursor: null,
    });
  });

  it('answers a retry whose first call fired but died before its answer was stored with that same fire', async () => {
    const id = await create(pushTrigger({ webhook_url: `${receiver.url}/fired-retried` }));
    const first = await fire(id, { current_value: 10 }, { 'idempotency-key': 'died-after-commit' });
    expect(first.status).toBe(200);
    // What a SIGKILL between the fire's commit and the stored answer leaves: the claim in flight, lapsed.
    await t.app
      .get(EntityManager)
      .fork()
      .nativeUpdate(
        IdempotencyRecordSchema,
        { id: idempotencyRecordId(owner.orgId, 'died-after-commit') },
        { state: 'in_flight', statusCode: null, responseSealed: null, leaseUntil: new Date(0) },
      );
    const retried = await fire(id, { current_value: 10 }, { 'idempotency-key': 'died-after-commit' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires.map((f: any) => f.fire_id)).toEqual([first.body.fire_id]);
  });

  it('records a fire with its run, state and outbox messages in one transaction: a failed message write leaves none', async () => {
    const account = await signupAccount(t);
    const id = await t.request('POST', '/v1/triggers', {
      body: pushTrigger({ webhook_url: `${receiver.url}/refused-by-store` }),
      token: account.apiKey,
    });
    const rows = async () => {
      const connection = t.app.get(EntityManager).getConnection();
      const count = async (sql: string, param: string) =>
        Number((await connection.execute<{ n: number | string }[]>(sql, [param]))[0].n);
      return {
        runs: await count('select count(*) as n from simulation_runs where org_id = ?', account.orgId),
        fires: await count('select count(*) as n from trigger_fires where trigger_id = ?', id.body.id),
        messages: await count('select count(*) as n from webhook_deliveries where org_id = ?', account.orgId),
        lastFires: await count(
          'select count(*) as n from triggers where id = ? and last_fire_id is not null',
          id.body.id,
        ),
      };
    };
    // The store itself refuses the outbox row, the last write of the fire's transaction.
    const fault = storeFault(t.app.get(EntityManager), '/refused-by-store');
    await fault.install();
    const refused = await t.request('POST', `/v1/triggers/${id.body.id}/fire`, {
      body: { current_value: 7 },
      token: account.apiKey,
    });
    expect(refused.status).toBe(500);
    expect(await rows()).toEqual({ runs: 0, fires: 0, messages: 0, lastFires: 0 });

    await fault.remove();
    const fired = await t.request('POST', `/v1/triggers/${id.body.id}/fire`, {
      body: { current_value: 7 },
      token: account.apiKey,
    });
    expect(fired.status).toBe(200);
    expect(await rows()).toEqual({ runs: 1, fires: 1, messages: 1, lastFires: 1 });
    const run = await t.app
      .get(EntityManager)
      .getConnection()
      .execute('select id from simulation_runs where org_id = ?', [account.orgId]);
    expect(run).toEqual([{ id: fired.body.run_id }]);
  });

  it('dry-runs an evaluation without simulating or recording anything', async () => {
    const id = await create(queryTrigger(datasetId, { enabled: false }));
    const res = await t.request('POST', `/v1/triggers/${id}/evaluate`, { body: {}, token: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      reading: 'value',
      condition_met: true,
      current_value: 80,
      would_fire: false,
      error: null,
    });
    const pushed = await create(pushTrigger());
    const push = await t.request('POST', `/v1/triggers/${pushed}/evaluate`, {
      body: { current_value: 5 },
      token: owner.apiKey,
    });
    expect(push.body).toMatchObject({ condition_met: true, current_value: 5, would_fire: true });
    const fires = await t.request('GET', `/v1/triggers/${pushed}/fires`, { token: owner.apiKey });
    expect(fires.body.fires).toEqual([]);
  });

  it('evaluates a query trigger on its schedule, fires once for its slot and keeps its state across a restart', async () => {
    const id = await create(queryTrigger(datasetId, { webhook_url: `${receiver.url}/fired-query` }));
    const fired = await waitUntil(async () => {
      const res = await t.request('GET', `/v1/triggers/${id}`, { token: owner.apiKey });
      return res.body.last_fire_id ? res.body : undefined;
    }, 20000);
    expect(fired.state).toBe('firing');
    expect(Date.parse(fired.next_evaluation_at) - Date.parse(fired.created_at)).toBe(60_000);
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires).toHaveLength(1);
    expect(fires.body.fires[0]).toMatchObject({
      fire_id: fired.last_fire_id,
      slot: fired.created_at,
      condition_met: true,
      current_value: 80,
      execution_status: 'not_requested',
    });
    const [call] = await waitUntil(() =>
      callsTo('/fired-query').length > 0 ? callsTo('/fired-query') : undefined,
    );
    expect(JSON.parse(call.body.toString())).toMatchObject({ event: 'trigger.fired', current_value: 80 });

    const pending = await create(
      queryTrigger(datasetId, {
        condition: { ...(queryTrigger(datasetId).condition as object), for_s: 3600 },
      }),
    );
    const waiting = await waitUntil(async () => {
      const res = await t.request('GET', `/v1/triggers/${pending}`, { token: owner.apiKey });
      return res.body.state === 'pending' ? res.body : undefined;
    }, 20000);
    expect(waiting.pending_since).toBe(waiting.created_at);

    const dataDir = t.dataDir;
    await t.close(true);
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` }, dataDir);
    const after = await t.request('GET', `/v1/triggers/${id}`, { token: owner.apiKey });
    expect(after.body).toMatchObject({ state: 'firing', last_fire_id: fired.last_fire_id });
    const stillPending = await t.request('GET', `/v1/triggers/${pending}`, { token: owner.apiKey });
    expect(stillPending.body).toMatchObject({ state: 'pending', pending_since: waiting.pending_since });
    const again = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(again.body.fires).toHaveLength(1);
  });

  it('shares one run of a query among triggers claimed together, per org; each takes its own value and threshold', async () => {
    const base = queryTrigger(datasetId).condition as { source: Record<string, unknown> };
    const condition = (aggregate: string, threshold: number) => ({
      ...base,
      source: { ...base.source, query: { select: ['stock'] }, value: { column: 'stock', aggregate } },
      threshold,
    });
    const ids = [];
    for (const [aggregate, threshold] of [
      ['first', 100],
      ['first', 10],
      ['max', 100],
    ] as const) {
      ids.push(
        await create(queryTrigger(datasetId, { enabled: false, condition: condition(aggregate, threshold) })),
      );
    }
    const repository = t.app.get(TriggerRepository);
    const triggers = await Promise.all(
      ids.map(async (id) => (await repository.findForOrg(owner.orgId, id))!),
    );
    // The same query for an org that cannot see the dataset is run for that org, not taken from the others.
    const stranger = { ...triggers[0], orgId: 'org_stranger' };
    const read = t.app.get(TriggerReader).sharing();
    expect(await Promise.all([...triggers, stranger].map(read))).toEqual([
      { kind: 'value', value: 80, conditionMet: true },
      { kind: 'value', value: 80, conditionMet: false },
      { kind: 'value', value: 120, conditionMet: false },
      { kind: 'error', message: expect.stringMatching(/^dataset_not_found: /) },
    ]);
  });

  it('records the fire of a URL the egress policy blocks; its delivery shows blocked', async () => {
    const id = await create(pushTrigger({ webhook_url: 'http://blocked.example.invalid/hook' }));
    const res = await fire(id, { current_value: 1 });
    expect(res.status).toBe(200);
    expect(res.body.condition_met).toBe(true);
    const blocked = await waitUntil(async () => {
      const list = await t.request('GET', '/v1/webhooks/deliveries?status=blocked', { token: owner.apiKey });
      return list.body.deliveries.find((d: any) => d.url === 'http://blocked.example.invalid/hook');
    });
    expect(blocked.event).toBe('trigger.fired');
  });
});

/**
 * A database trigger that aborts the insert of an outbox row whose URL contains `urlPart`, on the store the run is
 * about: a write failing inside the store, after the writes before it in the same transaction succeeded.
 */
function storeFault(
  em: EntityManager,
  urlPart: string,
): { install(): Promise<void>; remove(): Promise<void> } {
  const name = `refuse_outbox_${process.pid}_${Date.now()}`;
  const connection = em.getConnection();
  const like = `'%${urlPart}%'`;
  if (process.env.TEST_STORE !== 'postgresql') {
    return {
      install: async () => {
        await connection.execute(
          `create trigger ${name} before insert on webhook_deliveries when new.url like ${like} ` +
            `begin select raise(abort, 'outbox write refused by the test'); end`,
        );
      },
      remove: async () => {
        await connection.execute(`drop trigger ${name}`);
      },
    };
  }
  return {
    install: async () => {
      await connection.execute(
        `create function ${name}() returns trigger language plpgsql as $$ begin ` +
          `if new.url like ${like} then raise exception 'outbox write refused by the test'; end if; ` +
          `return new; end $$`,
      );
      await connection.execute(
        `create trigger ${name} before insert on webhook_deliveries for each row execute function ${name}()`,
      );
    },
    remove: async () => {
      await connection.execute(`drop trigger ${name} on webhook_deliveries`);
      await connection.execute(`drop function ${name}()`);
    },
  };
}
