import { createApiKey, signupAccount, TestAccount } from '../factories/accounts';
import { pushTrigger } from '../factories/triggers';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const SPEC_EXECUTE_FIELDS = [
  'event',
  'trigger_id',
  'trigger_name',
  'fired_at',
  'policy_snapshot_id',
  'decision_plan',
];

describe('triggers: execution policy, decision.execute, outcomes and calibration', () => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    // /late answers 500 until the message expires; everything else 200.
    receiver = await startReceiver((req, res) => {
      res.statusCode = req.url?.startsWith('/late') ? 500 : 200;
      res.end('ok');
    });
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_WEBHOOK_RETRY_BASE_MS: '50',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const callsTo = (path: string) => receiver.requests.filter((r) => r.url === path);
  const create = async (owner: TestAccount, body: unknown): Promise<string> => {
    const res = await t.request('POST', '/v1/triggers', { body, token: owner.apiKey });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const fire = async (owner: TestAccount, id: string, value = 42): Promise<any> => {
    const res = await t.request('POST', `/v1/triggers/${id}/fire`, {
      body: { current_value: value },
      token: owner.apiKey,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const setPolicy = async (owner: TestAccount, body: unknown): Promise<any> => {
    const res = await t.request('PUT', '/v1/execution-policy', { body, token: owner.apiKey });
    expect(res.status).toBe(200);
    return res.body;
  };
  const report = (owner: TestAccount, id: string, fireId: string, body: unknown) =>
    t.request('POST', `/v1/triggers/${id}/fires/${fireId}/outcome`, { body, token: owner.apiKey });
  const deliveriesOf = async (owner: TestAccount, fireId: string): Promise<any[]> => {
    const res = await t.request('GET', `/v1/webhooks/deliveries?fire_id=${fireId}`, { token: owner.apiKey });
    expect(res.status).toBe(200);
    return res.body.deliveries;
  };

  it('keeps an org policy whose every change is an immutable snapshot; only admins change it', async () => {
    const owner = await signupAccount(t);
    const first = await t.request('GET', '/v1/execution-policy', { token: owner.apiKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      mode: 'calibrated_only',
      min_outcomes: 30,
      coverage_target: 0.9,
      created_by: null,
    });
    expect(first.body.coverage_tolerance).toBeCloseTo(3 * Math.sqrt(0.09 / 30), 10);
    expect(first.body.policy_snapshot_id).toMatch(/^pol_/);
    const again = await t.request('GET', '/v1/execution-policy', { token: owner.apiKey });
    expect(again.body.policy_snapshot_id).toBe(first.body.policy_snapshot_id);

    const member = await createApiKey(t, owner.apiKey, { role: 'member' });
    const refused = await t.request('PUT', '/v1/execution-policy', {
      body: { mode: 'always' },
      token: member.rawKey,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
    const bad = await t.request('PUT', '/v1/execution-policy', {
      body: { mode: 'sometimes', min_outcomes: 5, outcome_reporter_roles: ['viewer'], extra: 1 },
      token: owner.apiKey,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual([
      'extra',
      'min_outcomes',
      'mode',
      'outcome_reporter_roles',
    ]);
    const twice = await t.request('PUT', '/v1/execution-policy', {
      body: { mode: 'always', outcome_reporter_roles: ['admin', 'admin'] },
      token: owner.apiKey,
    });
    expect(twice.body.error.details).toEqual([
      { field: 'outcome_reporter_roles', problem: 'must not name a role twice' },
    ]);

    const always = await setPolicy(owner, { mode: 'always' });
    expect(always).toMatchObject({ mode: 'always', min_outcomes: 30, created_by: owner.apiKeyId });
    expect(always.policy_snapshot_id).not.toBe(first.body.policy_snapshot_id);
    expect((await setPolicy(owner, { mode: 'always' })).policy_snapshot_id).toBe(always.policy_snapshot_id);
    const never = await setPolicy(owner, { mode: 'never', min_outcomes: 50 });
    expect(never.policy_snapshot_id).not.toBe(always.policy_snapshot_id);
    const withMembers = await setPolicy(owner, {
      mode: 'never',
      min_outcomes: 50,
      outcome_reporter_roles: ['owner', 'member'],
    });
    expect(withMembers.outcome_reporter_roles).toEqual(['member', 'owner']);
    expect(withMembers.policy_snapshot_id).not.toBe(never.policy_snapshot_id);
    const back = await setPolicy(owner, { mode: 'never', min_outcomes: 50 });
    expect(back.outcome_reporter_roles).toEqual(['admin', 'owner']);

    const old = await t.request('GET', `/v1/execution-policy/snapshots/${always.policy_snapshot_id}`, {
      token: member.rawKey,
    });
    expect(old.body).toEqual(always);
    const other = await signupAccount(t);
    const hidden = await t.request('GET', `/v1/execution-policy/snapshots/${always.policy_snapshot_id}`, {
      token: other.apiKey,
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    const current = await t.request('GET', '/v1/execution-policy', { token: member.rawKey });
    expect(current.body).toEqual(back);
  });

  it('answers every execution status and queues decision.execute only when dispatched', async () => {
    const owner = await signupAccount(t);
    const notRequested = await create(owner, pushTrigger({ execution_webhook_url: `${receiver.url}/x-nr` }));
    const noUrl = await create(owner, pushTrigger({ auto_execute: true }));
    const withUrl = await create(
      owner,
      pushTrigger({
        auto_execute: true,
        webhook_url: `${receiver.url}/fired-d`,
        execution_webhook_url: `${receiver.url}/execute-d`,
      }),
    );
    const initial = (await t.request('GET', '/v1/execution-policy', { token: owner.apiKey })).body;
    expect((await fire(owner, notRequested)).execution_status).toBe('not_requested');
    expect((await fire(owner, noUrl)).execution_status).toBe('skipped_no_url');
    const uncalibrated = await fire(owner, withUrl);
    expect(uncalibrated).toMatchObject({
      execution_status: 'skipped_uncalibrated',
      policy_snapshot_id: initial.policy_snapshot_id,
    });

    const never = await setPolicy(owner, { mode: 'never' });
    expect(await fire(owner, withUrl)).toMatchObject({
      execution_status: 'skipped_policy',
      policy_snapshot_id: never.policy_snapshot_id,
    });

    const always = await setPolicy(owner, { mode: 'always' });
    const dispatched = await fire(owner, withUrl);
    expect(dispatched).toMatchObject({
      execution_status: 'dispatched',
      policy_snapshot_id: always.policy_snapshot_id,
      recommended_action: 'reorder',
    });
    const [call] = await waitUntil(() =>
      callsTo('/execute-d').length > 0 ? callsTo('/execute-d') : undefined,
    );
    const body = JSON.parse(call.body.toString());
    expect(Object.keys(body)).toEqual(expect.arrayContaining(SPEC_EXECUTE_FIELDS));
    expect(body).toMatchObject({
      event: 'decision.execute',
      trigger_id: withUrl,
      trigger_name: 'reorder when stock is low',
      fired_at: dispatched.fired_at,
      policy_snapshot_id: always.policy_snapshot_id,
      decision_plan: {
        recommended_action: 'reorder',
        steps: [{ name: 'create_purchase_order', params: { quantity: 500 } }],
      },
      fire_id: dispatched.fire_id,
      run_id: dispatched.run_id,
    });
    expect(call.headers['x-webhook-signature']).toMatch(/^sha256=/);
    expect(call.headers['x-webhook-event']).toBe('decision.execute');
    // Only the dispatched fire reached the execution receivers.
    expect(callsTo('/x-nr')).toHaveLength(0);
    expect(callsTo('/execute-d')).toHaveLength(1);

    const log = await waitUntil(async () => {
      const deliveries = await deliveriesOf(owner, dispatched.fire_id);
      return deliveries.every((d) => d.status === 'delivered') ? deliveries : undefined;
    });
    expect(log.map((d) => d.event).sort()).toEqual(['decision.execute', 'trigger.fired']);
    const execute = log.find((d) => d.event === 'decision.execute');
    expect(execute).toMatchObject({ fire_id: dispatched.fire_id, url: `${receiver.url}/execute-d` });
    expect(Date.parse(execute.expires_at) - Date.parse(dispatched.fired_at)).toBe(900_000);
    expect(await deliveriesOf(owner, uncalibrated.fire_id)).toEqual([
      expect.objectContaining({ event: 'trigger.fired' }),
    ]);
  });

  it('records a decision.execute the egress policy blocks: the fire says dispatched, the log says blocked', async () => {
    const owner = await signupAccount(t);
    await setPolicy(owner, { mode: 'always' });
    const id = await create(
      owner,
      pushTrigger({ auto_execute: true, execution_webhook_url: 'http://192.0.2.10:9/execute' }),
    );
    const fired = await fire(owner, id);
    expect(fired.execution_status).toBe('dispatched');
    const [blocked] = await waitUntil(async () => {
      const log = await deliveriesOf(owner, fired.fire_id);
      return log.length === 1 && log[0].status === 'blocked' ? log : undefined;
    });
    expect(blocked.event).toBe('decision.execute');
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires[0]).toMatchObject({ fire_id: fired.fire_id, execution_status: 'dispatched' });
  });

  it('never sends a decision.execute past its maximum age, on retry or on redeliver', async () => {
    const owner = await signupAccount(t);
    await setPolicy(owner, { mode: 'always' });
    const late = await create(
      owner,
      pushTrigger({
        auto_execute: true,
        execution_webhook_url: `${receiver.url}/late`,
        execution_max_age_s: 1,
      }),
    );
    const fired = await fire(owner, late);
    expect(fired.execution_status).toBe('dispatched');
    // The receiver keeps failing; the retries (50 ms, doubling) outlive the one-second maximum age.
    const [expired] = await waitUntil(async () => {
      const log = await deliveriesOf(owner, fired.fire_id);
      return log[0]?.status === 'expired' ? log : undefined;
    }, 20000);
    expect(expired.attempts.length).toBeGreaterThan(0);
    expect(expired.attempts.every((a: any) => a.status_code === 500)).toBe(true);
    const sent = callsTo('/late').length;
    expect(sent).toBe(expired.attempts.length);
    const redelivered = await t.request('POST', `/v1/webhooks/deliveries/${expired.id}/redeliver`, {
      token: owner.apiKey,
    });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.status).toBe('expired');

    // A delivered one, redelivered after its maximum age, expires instead of going out again.
    const quick = await create(
      owner,
      pushTrigger({
        auto_execute: true,
        execution_webhook_url: `${receiver.url}/quick`,
        execution_max_age_s: 1,
      }),
    );
    const quickFire = await fire(owner, quick);
    const [delivered] = await waitUntil(async () => {
      const log = await deliveriesOf(owner, quickFire.fire_id);
      return log[0]?.status === 'delivered' ? log : undefined;
    });
    await waitUntil(() => Date.now() > Date.parse(delivered.expires_at) + 50, 5000);
    const again = await t.request('POST', `/v1/webhooks/deliveries/${delivered.id}/redeliver`, {
      token: owner.apiKey,
    });
    expect(again.body.status).toBe('expired');
    const expiredList = await t.request('GET', '/v1/webhooks/deliveries?status=expired', {
      token: owner.apiKey,
    });
    expect(expiredList.body.deliveries.map((d: any) => d.id).sort()).toEqual(
      [expired.id, delivered.id].sort(),
    );
    expect(callsTo('/late')).toHaveLength(sent);
    expect(callsTo('/quick')).toHaveLength(1);
    // The fire's answer is not rewritten.
    const fires = await t.request('GET', `/v1/triggers/${late}/fires`, { token: owner.apiKey });
    expect(fires.body.fires[0].execution_status).toBe('dispatched');
  });

  it('takes one outcome per fire, judges every action on realized variables, and refuses bad reports', async () => {
    const owner = await signupAccount(t);
    const id = await create(owner, pushTrigger());
    const fired = await fire(owner, id, 42);
    const res = await report(owner, id, fired.fire_id, {
      realized_value: 160,
      realized_variables: { demand: 104 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      fire_id: fired.fire_id,
      trigger_id: id,
      realized_value: 160,
      recommended_action: 'reorder',
      inside_band: true,
      realized_variables: { demand: 104 },
      // reorder = 2·demand − current_value = 166, wait = current_value − demand = −62.
      action_values: { reorder: 166, wait: -62 },
      best_action: 'reorder',
      recommended_was_best: true,
    });
    // reorder = 2·U(80, 120) − 42: mean 158, 5th percentile 122, 95th 194.
    expect(Math.abs(res.body.predicted.mean - 158)).toBeLessThan(2);
    expect(Math.abs(res.body.predicted.p5 - 122)).toBeLessThan(2);
    expect(Math.abs(res.body.predicted.p95 - 194)).toBeLessThan(2);

    const twice = await report(owner, id, fired.fire_id, { realized_value: 1 });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('conflict');
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires[0].realized_value).toBe(160);

    const unknownFire = await report(owner, id, 'fire_missing', { realized_value: 1 });
    expect(unknownFire.status).toBe(404);
    const otherTrigger = await create(owner, pushTrigger());
    expect((await report(owner, otherTrigger, fired.fire_id, { realized_value: 1 })).status).toBe(404);
    const stranger = await signupAccount(t);
    const foreign = await report(stranger, id, fired.fire_id, { realized_value: 1 });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');

    const quiet = await fire(owner, id, 500);
    expect(quiet.condition_met).toBe(false);
    expect((await report(owner, id, quiet.fire_id, { realized_value: 1 })).status).toBe(409);

    const next = await fire(owner, id, 42);
    const invalid = await t.request('POST', `/v1/triggers/${id}/fires/${next.fire_id}/outcome`, {
      token: owner.apiKey,
      body: { realized_value: 'high', realized_variables: { demand: 'x' } },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.map((d: any) => d.field).sort()).toEqual([
      'realized_value',
      'realized_variables',
    ]);
    // A number that reads as Infinity is refused by the JSON parser, before the route, naming the field.
    const infinite = await t.request('POST', `/v1/triggers/${id}/fires/${next.fire_id}/outcome`, {
      token: owner.apiKey,
      rawBody: '{"realized_value": 1e999}',
      headers: { 'content-type': 'application/json' },
    });
    expect(infinite.status).toBe(422);
    expect(infinite.body.error.details.map((d: any) => d.field)).toEqual(['realized_value']);
    const unknownVariable = await report(owner, id, next.fire_id, {
      realized_value: 1,
      realized_variables: { demand: 1, price: 2 },
    });
    expect(unknownVariable.status).toBe(422);
    expect(unknownVariable.body.error.details).toEqual([
      { field: 'realized_variables.price', problem: 'is not a variable of the simulation this fire ran' },
    ]);
    const missing = await report(owner, id, next.fire_id, { realized_value: 1, realized_variables: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details[0].problem).toContain('missing: demand');
    // Refused reports leave the fire open for a good one.
    expect((await report(owner, id, next.fire_id, { realized_value: 1 })).status).toBe(201);
  });

  it('counts toward calibration only the outcomes of the roles the policy names, and audits every report', async () => {
    const owner = await signupAccount(t);
    const member = await createApiKey(t, owner.apiKey, { role: 'member' });
    const admin = await createApiKey(t, owner.apiKey, { role: 'admin' });
    const id = await create(
      owner,
      pushTrigger({ auto_execute: true, execution_webhook_url: `${receiver.url}/execute-roles` }),
    );
    const reportAll = async (key: string): Promise<string[]> => {
      const fireIds: string[] = [];
      for (let i = 0; i < 30; i++) {
        const fired = await fire(owner, id, 42);
        expect(fired.execution_status).toBe('skipped_uncalibrated');
        const res = await t.request('POST', `/v1/triggers/${id}/fires/${fired.fire_id}/outcome`, {
          body: { realized_value: fired.expected_value },
          token: key,
        });
        expect(res.status).toBe(201);
        fireIds.push(fired.fire_id);
      }
      return fireIds;
    };
    const calibration = async (): Promise<any> =>
      (await t.request('GET', `/v1/triggers/${id}/calibration`, { token: owner.apiKey })).body;

    const byMember = await reportAll(member.rawKey);
    const afterMember = await calibration();
    expect(afterMember.status).toBe('calibrating');
    expect((await fire(owner, id, 42)).execution_status).toBe('skipped_uncalibrated');
    expect(afterMember).toMatchObject({
      status: 'calibrating',
      outcomes: 0,
      uncounted_outcomes: 30,
      outcome_reporter_roles: ['admin', 'owner'],
    });
    expect(callsTo('/execute-roles')).toHaveLength(0);
    const fires = await t.request('GET', `/v1/triggers/${id}/fires?limit=100`, { token: owner.apiKey });
    const reported = fires.body.fires.filter((f: any) => byMember.includes(f.fire_id));
    expect(reported).toHaveLength(30);
    for (const f of reported) expect(f.reported_by).toEqual({ id: member.id, role: 'member' });

    const byAdmin = await reportAll(admin.rawKey);
    expect(await calibration()).toMatchObject({ status: 'calibrated', outcomes: 30, uncounted_outcomes: 30 });
    expect((await fire(owner, id, 42)).execution_status).toBe('dispatched');
    const policy = await t.request('GET', '/v1/execution-policy', { token: owner.apiKey });
    expect(policy.body).toMatchObject({
      mode: 'calibrated_only',
      outcome_reporter_roles: ['admin', 'owner'],
    });

    const log = await t.request('GET', '/v1/audit-log?limit=1000', { token: owner.apiKey });
    const audited = log.body.events.filter((e: any) => e.event === 'outcome_reported');
    expect(audited).toHaveLength(60);
    const reporterOf = new Map(audited.map((e: any) => [e.target.id, e]));
    for (const fireId of byMember) {
      expect(reporterOf.get(fireId)).toMatchObject({
        actor: { type: 'api_key', id: member.id },
        target: { type: 'trigger_fire', id: fireId },
        details: { trigger_id: id, role: 'member', counts_toward_calibration: false },
      });
    }
    for (const fireId of byAdmin) {
      expect(reporterOf.get(fireId)).toMatchObject({
        actor: { type: 'api_key', id: admin.id },
        details: { trigger_id: id, role: 'admin', counts_toward_calibration: true },
      });
    }
  });

  it('shows calibration and executes a calibrated trigger under calibrated_only until it degrades', async () => {
    const owner = await signupAccount(t);
    const policy = await setPolicy(owner, { mode: 'calibrated_only', min_outcomes: 10 });
    const id = await create(
      owner,
      pushTrigger({ auto_execute: true, execution_webhook_url: `${receiver.url}/execute-cal` }),
    );
    const calibration = async (): Promise<any> => {
      const res = await t.request('GET', `/v1/triggers/${id}/calibration`, { token: owner.apiKey });
      expect(res.status).toBe(200);
      return res.body;
    };
    expect(await calibration()).toEqual({
      trigger_id: id,
      status: 'calibrating',
      outcomes: 0,
      uncounted_outcomes: 0,
      outcome_reporter_roles: ['admin', 'owner'],
      window: 0,
      inside_band: 0,
      below_band: 0,
      above_band: 0,
      coverage: null,
      coverage_target: 0.9,
      coverage_tolerance: 3 * Math.sqrt(0.09 / 10),
      min_outcomes: 10,
      judged: 0,
      recommended_best: 0,
      policy_snapshot_id: policy.policy_snapshot_id,
    });

    for (let i = 0; i < 10; i++) {
      const fired = await fire(owner, id, 42);
      expect(fired.execution_status).toBe('skipped_uncalibrated');
      const outcome = await report(owner, id, fired.fire_id, {
        realized_value: i === 0 ? 100 : 150 + i,
        ...(i < 4 ? { realized_variables: { demand: 95 + i } } : {}),
      });
      expect(outcome.status).toBe(201);
    }
    expect(await calibration()).toMatchObject({
      status: 'calibrated',
      outcomes: 10,
      window: 10,
      inside_band: 9,
      below_band: 1,
      above_band: 0,
      coverage: 0.9,
      judged: 4,
      recommended_best: 4,
    });
    const dispatched = await fire(owner, id, 42);
    expect(dispatched).toMatchObject({
      execution_status: 'dispatched',
      policy_snapshot_id: policy.policy_snapshot_id,
    });
    await waitUntil(() => callsTo('/execute-cal').length === 1);

    // Outcomes far above the band: coverage falls out of the tolerance, execution stops again.
    for (let i = 0; i < 6; i++) {
      const fired = await fire(owner, id, 42);
      expect((await report(owner, id, fired.fire_id, { realized_value: 1000 })).status).toBe(201);
    }
    expect((await report(owner, id, dispatched.fire_id, { realized_value: 1000 })).status).toBe(201);
    const degraded = await calibration();
    expect(degraded).toMatchObject({ status: 'degraded', outcomes: 17, inside_band: 9, above_band: 7 });
    expect(degraded.coverage).toBeCloseTo(9 / 17, 10);
    expect((await fire(owner, id, 42)).execution_status).toBe('skipped_uncalibrated');

    const stranger = await signupAccount(t);
    expect(
      (await t.request('GET', `/v1/triggers/${id}/calibration`, { token: stranger.apiKey })).status,
    ).toBe(404);
  });
});
