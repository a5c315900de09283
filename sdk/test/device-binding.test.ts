import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DecisionService, DeviceBindingError, FileBindingStore, MemoryBindingStore } from '../src/index';
import { startDaemon, type Daemon } from './support/daemon';
import { FaultProxy } from './support/fault-proxy';

describe('device binding of capped keys against the real daemon', () => {
  let daemon: Daemon;
  let proxy: FaultProxy;
  let owner: DecisionService;
  let cappedKey: string;
  const home = mkdtempSync(join(tmpdir(), 'sdk-bindings-'));
  const storePath = join(home, 'device-bindings.json');

  async function newCappedKey(label: string): Promise<string> {
    return String((await owner.apiKeys.create({ label, device_limit: 1 })).raw_key);
  }

  function capped(
    deviceId: string | undefined,
    store = new MemoryBindingStore() as MemoryBindingStore | FileBindingStore,
    apiKey = cappedKey,
  ): DecisionService {
    return new DecisionService({ apiKey, baseURL: proxy.baseURL, deviceId, bindingStore: store });
  }

  async function revokeDevice(deviceId: string): Promise<void> {
    const devices = (await owner.devices.list()).devices;
    const registration = devices.find((d) => d.device_id === deviceId);
    assert.ok(registration, `${deviceId} is bound`);
    await owner.devices.revoke(String(registration.registration_id));
  }

  before(async () => {
    daemon = await startDaemon();
    proxy = new FaultProxy(daemon.baseURL);
    await proxy.start();
    owner = new DecisionService({
      apiKey: daemon.ownerKey,
      baseURL: daemon.baseURL,
      bindingStore: new MemoryBindingStore(),
    });
    cappedKey = await newCappedKey('capped');
  });

  after(async () => {
    await proxy?.stop();
    await daemon?.stop();
  });

  it('derives the device id from the machine id by an application-specific HMAC, never sending the raw id', () => {
    const machineId = readFileSync('/etc/machine-id', 'utf8').trim();
    const sdk = capped(undefined);
    const expected = createHmac('sha256', machineId)
      .update('decision-service-sdk/device-id/v1')
      .digest('hex')
      .slice(0, 40);
    assert.equal(sdk.device.deviceId, expected);
    assert.equal(capped(undefined).device.deviceId, expected);
    assert.ok(!JSON.stringify(sdk.device).includes(machineId));
  });

  it('binds on the first request, keeps the token in a 0600 file and replays it on every later request', async () => {
    const sdk = capped('sdk-device-one-0000000000', new FileBindingStore(storePath));
    const me = await sdk.me();
    assert.equal(me.device_id, 'sdk-device-one-0000000000');
    assert.equal(statSync(storePath).mode & 0o777, 0o600);
    const file = readFileSync(storePath, 'utf8');
    assert.ok(!file.includes(cappedKey), 'the key itself is never written');
    const entries = Object.entries(
      (JSON.parse(file) as { bindings: Record<string, { token: string }> }).bindings,
    );
    assert.equal(entries.length, 1);
    const [storeKey, { token }] = entries[0];
    const keyId = createHash('sha256').update(cappedKey).digest('hex').slice(0, 16);
    assert.equal(storeKey, `${proxy.baseURL}|key:${keyId}|device:sdk-device-one-0000000000`);
    assert.match(token, /^dbt_/);
    const firstRequest = proxy.seen.length;
    await sdk.health();
    await sdk.connectors.types();
    for (const request of proxy.seen.slice(firstRequest))
      assert.equal(request.headers['x-service-device-binding-token'], token);

    const laterProcess = capped('sdk-device-one-0000000000', new FileBindingStore(storePath));
    assert.equal((await laterProcess.me()).device_id, 'sdk-device-one-0000000000');
  });

  it('a second device over the key limit is refused with DeviceBindingError, not retried', async () => {
    const before = proxy.seen.length;
    const error = await capped('sdk-device-two-0000000000')
      .me()
      .catch((e: unknown) => e);
    assert.ok(error instanceof DeviceBindingError);
    assert.equal(error.status, 402);
    assert.equal(error.code, 'device_limit_reached');
    assert.equal(proxy.seen.length - before, 1);
  });

  it('a bound device that lost its token, or presents a wrong one, is refused', async () => {
    const forgot = await capped('sdk-device-one-0000000000')
      .me()
      .catch((e: unknown) => e);
    assert.ok(forgot instanceof DeviceBindingError);
    assert.equal(forgot.code, 'device_binding_token_required');
    assert.equal(forgot.status, 401);

    const tamperedPath = join(home, 'tampered.json');
    const file = JSON.parse(readFileSync(storePath, 'utf8')) as {
      bindings: Record<string, { token: string }>;
    };
    for (const entry of Object.values(file.bindings)) entry.token = 'dbt_not-the-token';
    writeFileSync(tamperedPath, JSON.stringify(file));
    const wrong = await capped('sdk-device-one-0000000000', new FileBindingStore(tamperedPath))
      .me()
      .catch((e: unknown) => e);
    assert.ok(wrong instanceof DeviceBindingError);
    assert.equal(wrong.code, 'invalid_device_binding_token');
    assert.equal(wrong.status, 403);
  });

  it('a device id already bound to another machine is refused as a clone', async () => {
    const key = await newCappedKey('clone-check');
    const clonedId = 'sdk-device-clone-00000000';
    const bound = await fetch(`${daemon.baseURL}/v1/me`, {
      headers: {
        authorization: `Bearer ${key}`,
        'x-service-device-id': clonedId,
        'x-service-platform': 'linux',
        'x-service-hostname-hash': 'f'.repeat(64),
      },
    });
    assert.equal(bound.status, 200);
    const error = await capped(clonedId, new MemoryBindingStore(), key)
      .me()
      .catch((e: unknown) => e);
    assert.ok(error instanceof DeviceBindingError);
    assert.equal(error.code, 'device_identity_mismatch');
    await revokeDevice(clonedId);
  });

  it('concurrent first requests of a new device bind once and all succeed', async () => {
    const key = await newCappedKey('concurrent');
    const store = new MemoryBindingStore();
    const sdk = capped('sdk-device-concurrent-000', store, key);
    const answers = await Promise.all(Array.from({ length: 6 }, () => sdk.me()));
    assert.deepEqual(
      answers.map((me) => me.device_id),
      Array(6).fill('sdk-device-concurrent-000'),
    );
    await revokeDevice('sdk-device-concurrent-000');
  });

  it('a revoked device fails closed on its next request', async () => {
    const key = await newCappedKey('revoked-device');
    const sdk = capped('sdk-device-revoked-000000', new MemoryBindingStore(), key);
    await sdk.me();
    await revokeDevice('sdk-device-revoked-000000');
    const error = await sdk.me().catch((e: unknown) => e);
    assert.ok(error instanceof DeviceBindingError);
    assert.equal(error.code, 'invalid_device_binding_token');
  });

  it('an uncapped key is never bound: no token is stored', async () => {
    const store = new MemoryBindingStore();
    const sdk = new DecisionService({
      apiKey: daemon.ownerKey,
      baseURL: daemon.baseURL,
      bindingStore: store,
      deviceId: 'sdk-device-uncapped-0000',
    });
    await sdk.me();
    await sdk.me();
    assert.equal(
      store.get(
        `${daemon.baseURL}|key:${createHash('sha256').update(daemon.ownerKey).digest('hex').slice(0, 16)}|device:sdk-device-uncapped-0000`,
      ),
      undefined,
    );
  });
});
