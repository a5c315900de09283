import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import DefaultExport, {
  ConflictError,
  DecisionService,
  MemoryBindingStore,
  NotFoundError,
  ValidationError,
  type JsonObject,
} from '../src/index';
import { startDaemon, type Daemon } from './support/daemon';
import { WebhookReceiver } from './support/receiver';

const CSV = 'region,units,price\nnorth,10,2.5\nsouth,20,3\neast,5,4\n';
const SCENARIO = {
  runs: 2000,
  seed: 42,
  scenario: {
    variables: { revenue: { low: 100, high: 200 }, cost: { low: -150, high: -60 } },
    objective: 'maximize_net_value' as const,
  },
};

describe('every resource method against the real daemon', () => {
  let daemon: Daemon;
  let receiver: WebhookReceiver;
  let client: DecisionService;

  before(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    daemon = await startDaemon({
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    client = new DecisionService({
      apiKey: daemon.ownerKey,
      baseURL: daemon.baseURL,
      bindingStore: new MemoryBindingStore(),
    });
  });

  after(async () => {
    await daemon?.stop();
    await receiver?.stop();
  });

  it('is the default export', () => {
    assert.equal(DefaultExport, DecisionService);
  });

  it('me, health, infrastructure, license and privacyReport', async () => {
    const me = await client.me();
    assert.equal(me.auth, 'api_key');
    assert.equal((me.key as JsonObject).role, 'owner');
    assert.equal((me.organization as JsonObject).is_operator, true);
    assert.equal((await client.health()).status, 'ok');
    const infrastructure = await client.infrastructure();
    assert.ok(['pool', 'subprocess_fallback'].includes(String(infrastructure.engine_mode)));
    const license = await client.license();
    assert.equal(license.edition, 'community');
    const report = await client.privacyReport();
    assert.equal(report.cloud_free, true);
    assert.equal(typeof report.report_version, 'number');
    assert.ok(report.signature);
  });

  it('simulate answers the same numbers for the same seed', async () => {
    const first = await client.simulate(SCENARIO);
    const second = await client.simulate(SCENARIO);
    assert.equal(first.seed, 42);
    assert.equal(first.runs, 2000);
    assert.equal(first.recommended_action, second.recommended_action);
    assert.equal(first.expected_value, second.expected_value);
    assert.ok(['pool', 'subprocess_fallback'].includes(String(first.engine_mode)));
  });

  it('simulate refuses a bad body with ValidationError and its details', async () => {
    const error = await client.simulate({ ...SCENARIO, runs: 0 }).catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.equal(error.status, 422);
    assert.equal(error.code, 'validation_failed');
    assert.ok(Array.isArray(error.details) && error.details.some((d) => d.field === 'runs'));
    assert.match(String(error.requestId), /.+/);
  });

  it('apiKeys.create, list and revoke', async () => {
    const created = await client.apiKeys.create({ label: 'sdk-made', device_limit: 0 });
    assert.equal(created.label, 'sdk-made');
    assert.match(String(created.raw_key), /_(live|test)_/);
    const listed = await client.apiKeys.list();
    assert.ok(listed.keys.some((k) => k.id === created.id && !('raw_key' in k)));
    const revoked = await client.apiKeys.revoke(String(created.id));
    assert.equal(revoked.id, created.id);
    assert.equal(revoked.revoked, true);
    const after = await client.apiKeys.list();
    assert.ok(!after.keys.some((k) => k.id === created.id));
    const missing = await client.apiKeys.revoke('key_does_not_exist').catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError);
    assert.equal(missing.code, 'api_key_not_found');
  });

  it('devices.register, list and revoke', async () => {
    const registration = await client.devices.register();
    assert.equal(registration.device_id, client.device.deviceId);
    assert.equal(typeof registration.license_token, 'string');
    const devices: JsonObject[] = [];
    for await (const device of client.devices.list()) devices.push(device);
    assert.ok(devices.some((d) => d.registration_id === registration.registration_id));
    const revoked = await client.devices.revoke(String(registration.registration_id));
    assert.equal(revoked.revoked, true);
  });

  it('providerKeys.set, list and delete', async () => {
    await client.providerKeys.set({ backend: 'engine', api_key: 'sk-engine-secret-value' });
    const listed = await client.providerKeys.list();
    assert.deepEqual(
      listed.keys.map((k) => k.backend),
      ['engine'],
    );
    assert.ok(!JSON.stringify(listed).includes('sk-engine-secret-value'));
    await client.providerKeys.delete('engine');
    assert.deepEqual((await client.providerKeys.list()).keys, []);
    const missing = await client.providerKeys.delete('engine').catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError);
    assert.equal(missing.code, 'provider_key_not_found');
  });

  it('connectors: types, create, get, update, test, browse, delete and the inline calls', async () => {
    const types = await client.connectors.types();
    assert.ok((types.types as string[]).includes('file'));
    const created = await client.connectors.create({
      name: 'sales',
      connector_type: 'csv',
      config: { content: CSV },
    });
    assert.equal(created.status, 'untested');
    assert.equal(created.connector_type, 'file');
    const id = String(created.id);
    const notLive = await client.connectors.browse(id).catch((e: unknown) => e);
    assert.ok(notLive instanceof ConflictError);
    assert.equal(notLive.code, 'not_connected');
    const tested = await client.connectors.test(id);
    assert.equal(tested.success, true);
    assert.equal((await client.connectors.get(id)).status, 'live');
    const browsed = await client.connectors.browse(id);
    assert.equal(browsed.connector_type, 'file');
    const renamed = await client.connectors.update(id, { name: 'sales-2024' });
    assert.equal(renamed.name, 'sales-2024');
    const inlineTest = await client.connectors.testInline({
      connector_type: 'csv',
      config: { content: CSV },
    });
    assert.equal(inlineTest.success, true);
    const inlineBrowse = await client.connectors.browseInline({
      connector_type: 'csv',
      config: { content: CSV },
    });
    assert.equal(inlineBrowse.connector_type, 'file');
    await client.connectors.delete(id);
    const gone = await client.connectors.get(id).catch((e: unknown) => e);
    assert.ok(gone instanceof NotFoundError);
  });

  it('connectors.list pages by cursor: awaited it is the first page, iterated it is every connector', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const connector = await client.connectors.create({
        name: `paged-${i}`,
        connector_type: 'csv',
        config: { content: CSV },
      });
      made.push(String(connector.id));
    }
    const first = await client.connectors.list({ limit: 2 });
    assert.equal(first.connectors.length, 2);
    assert.equal(typeof first.next_cursor, 'string');
    const all: string[] = [];
    for await (const connector of client.connectors.list({ limit: 2 })) all.push(String(connector.id));
    assert.deepEqual([...all].sort(), [...made].sort());
    assert.equal(new Set(all).size, all.length);
  });

  it('data.connect, list, schema and query', async () => {
    const connector = await client.connectors.create({
      name: 'units',
      connector_type: 'csv',
      config: { content: CSV },
    });
    await client.connectors.test(String(connector.id));
    const connected = await client.data.connect({
      connection_type: 'file',
      dataset_name: 'units',
      connection_id: String(connector.id),
      visibility: 'private',
    });
    assert.equal(connected.status, 'ready');
    const datasetId = String(connected.dataset_id);
    const listed = await client.data.list();
    assert.ok(listed.datasets.some((d) => d.id === datasetId && d.rows === 3));
    const schema = await client.data.schema(datasetId);
    assert.deepEqual(
      (schema.columns as JsonObject[]).map((column) => column.name),
      ['region', 'units', 'price'],
    );
    const result = await client.data.query({ dataset_id: datasetId, select: ['region', 'units'], limit: 2 });
    assert.deepEqual(
      (result.rows as JsonObject[]).map((row) => row.region),
      ['north', 'south'],
    );
  });

  it('jobs.create, get, wait and list', async () => {
    const created = await client.jobs.create({ request: SCENARIO });
    assert.equal(typeof created.job_id, 'string');
    const fetched = await client.jobs.get(String(created.job_id));
    assert.equal(fetched.job_id, created.job_id);
    const finished = await client.jobs.wait(String(created.job_id), { pollInterval: 100 });
    assert.equal(finished.status, 'succeeded');
    const direct = await client.simulate(SCENARIO);
    assert.equal((finished.result as JsonObject).expected_value, direct.expected_value);
    const jobs = await client.jobs.list({ limit: 10 });
    assert.ok(jobs.jobs.some((job) => job.job_id === created.job_id));
  });

  it('triggers.create, list, get, update, evaluate, fire, fires and delete', async () => {
    const created = await client.triggers.create({
      name: 'sdk trigger',
      condition: { source: { kind: 'push' }, operator: 'lt', threshold: 100 },
      simulation: SCENARIO,
      webhook_url: receiver.url,
    });
    assert.match(created.id, /^trg_/);
    assert.equal(created.state, 'inactive');
    assert.equal((await client.triggers.get(created.id)).name, 'sdk trigger');
    const listed = [];
    for await (const trigger of client.triggers.list({ limit: 1 })) listed.push(trigger.id);
    assert.ok(listed.includes(created.id));
    const renamed = await client.triggers.update(created.id, { name: 'renamed', cooldown_s: 60 });
    assert.equal(renamed.cooldown_s, 60);
    const dry = await client.triggers.evaluate(created.id, { current_value: 5 });
    assert.deepEqual([dry.condition_met, dry.would_fire], [true, true]);
    const fired = await client.triggers.fire(created.id, { current_value: 5 });
    assert.equal(fired.condition_met, true);
    assert.match(String(fired.run_id), /^run_/);
    assert.equal(fired.execution_status, 'not_requested');
    const event = await receiver.next('trigger.fired');
    assert.equal(JSON.parse(event.body.toString()).fire_id, fired.fire_id);
    const quiet = await client.triggers.fire(created.id, { current_value: 500 });
    assert.equal(quiet.condition_met, false);
    const history = await client.triggers.fires(created.id).toArray();
    assert.deepEqual(
      history.map((fire) => fire.fire_id),
      [quiet.fire_id, fired.fire_id],
    );
    await assert.rejects(client.triggers.fire(created.id, {}), ValidationError);
    const outcome = await client.triggers.reportOutcome(created.id, fired.fire_id, { realized_value: 80 });
    assert.equal(outcome.realized_value, 80);
    await assert.rejects(
      client.triggers.reportOutcome(created.id, fired.fire_id, { realized_value: 80 }),
      ConflictError,
    );
    const calibration = await client.triggers.calibration(created.id);
    assert.deepEqual([calibration.status, calibration.outcomes], ['calibrating', 1]);
    assert.deepEqual(await client.triggers.delete(created.id), { id: created.id, deleted: true });
    await assert.rejects(client.triggers.get(created.id), NotFoundError);
  });

  it('executionPolicy.get, set and snapshot', async () => {
    const initial = await client.executionPolicy.get();
    assert.equal(initial.mode, 'calibrated_only');
    const changed = await client.executionPolicy.set({ mode: 'never', min_outcomes: 40 });
    assert.notEqual(changed.policy_snapshot_id, initial.policy_snapshot_id);
    assert.deepEqual(await client.executionPolicy.snapshot(initial.policy_snapshot_id), initial);
    await client.executionPolicy.set({ mode: 'calibrated_only' });
  });

  it('webhooks.test, signingSecret and deliveries', async () => {
    const { signing_secret } = await client.webhooks.signingSecret();
    assert.match(String(signing_secret), /^whsec_/);
    const result = await client.webhooks.test({ callback_url: receiver.url });
    assert.equal(result.success, true);
    assert.equal(result.status_code, 200);
    const job = await client.jobs.create({ request: SCENARIO, callback_url: receiver.url });
    await receiver.next('job.completed');
    const deliveries = [];
    for await (const delivery of client.webhooks.deliveries({ job_id: String(job.job_id) }))
      deliveries.push(delivery);
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0].event, 'job.completed');
  });
});
