import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  DecisionClient,
  DecisionService,
  MemoryBindingStore,
  SDK_VERSION,
} from '../src/index';
import { startDaemon, type Daemon } from './support/daemon';
import { FaultProxy } from './support/fault-proxy';

const VARIABLES = [
  'SERVICE_API_KEY',
  'SERVICE_TOKEN',
  'SERVICE_BASE_URL',
  'SERVICE_URL',
  'SERVICE_API_URL',
  'SERVICE_DEVICE_ID',
  'SERVICE_DEVICE',
];
const DEAD_URL = 'http://127.0.0.1:9';
const WRONG_KEY = 'dsk_live_thiskeydoesnotexistanywhere000';

function setEnv(values: Partial<Record<string, string>>): void {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
}

function client(options: ConstructorParameters<typeof DecisionService>[0] = {}): DecisionService {
  return new DecisionService({ bindingStore: new MemoryBindingStore(), maxRetries: 0, ...options });
}

describe('construction errors', () => {
  afterEach(() => setEnv({}));

  it('a missing key fails at construction, naming both variables', () => {
    setEnv({});
    assert.throws(
      () => new DecisionService(),
      (error: Error) => {
        assert.match(error.message, /SERVICE_API_KEY/);
        assert.match(error.message, /SERVICE_TOKEN/);
        return true;
      },
    );
  });

  it('a base URL that is not a URL fails at construction, naming where it came from', () => {
    setEnv({ SERVICE_API_KEY: 'k' });
    assert.throws(() => new DecisionService({ baseURL: 'not a url' }), /baseURL option is not a URL/);
    setEnv({ SERVICE_API_KEY: 'k', SERVICE_URL: 'localhost:8080' });
    assert.throws(() => new DecisionService(), /SERVICE_URL must be http or https/);
    setEnv({ SERVICE_API_KEY: 'k', SERVICE_API_URL: '::' });
    assert.throws(() => new DecisionService(), /SERVICE_API_URL is not a URL/);
  });

  it('a device id outside 16 to 64 characters fails at construction', () => {
    setEnv({ SERVICE_API_KEY: 'k', SERVICE_DEVICE: 'short' });
    assert.throws(() => new DecisionService(), /SERVICE_DEVICE must be 16 to 64/);
  });

  it('DecisionClient is the same class object as DecisionService', () => {
    assert.equal(DecisionClient, DecisionService);
    setEnv({ SERVICE_API_KEY: 'k' });
    assert.ok(new DecisionClient() instanceof DecisionService);
  });

  it('the SDK version constant is the package version', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(SDK_VERSION, pkg.version);
  });
});

describe('environment resolution against the real daemon', () => {
  let daemon: Daemon;
  let proxy: FaultProxy;

  before(async () => {
    daemon = await startDaemon();
    proxy = new FaultProxy(daemon.baseURL);
    await proxy.start();
  });

  after(async () => {
    setEnv({});
    await proxy?.stop();
    await daemon?.stop();
  });

  it('key: the constructor argument, then SERVICE_API_KEY, then the legacy SERVICE_TOKEN', async () => {
    setEnv({ SERVICE_BASE_URL: daemon.baseURL, SERVICE_API_KEY: daemon.ownerKey, SERVICE_TOKEN: WRONG_KEY });
    assert.equal((await client().me()).auth, 'api_key');
    setEnv({ SERVICE_BASE_URL: daemon.baseURL, SERVICE_API_KEY: WRONG_KEY, SERVICE_TOKEN: daemon.ownerKey });
    await assert.rejects(client().me(), AuthenticationError);
    assert.equal((await client({ apiKey: daemon.ownerKey }).me()).auth, 'api_key');
    setEnv({ SERVICE_BASE_URL: daemon.baseURL, SERVICE_TOKEN: daemon.ownerKey });
    assert.equal((await client().me()).auth, 'api_key');
  });

  it('base URL: the argument, then SERVICE_BASE_URL, then SERVICE_URL, then SERVICE_API_URL', async () => {
    setEnv({
      SERVICE_API_KEY: daemon.ownerKey,
      SERVICE_BASE_URL: daemon.baseURL,
      SERVICE_URL: DEAD_URL,
      SERVICE_API_URL: DEAD_URL,
    });
    assert.equal((await client().health()).status, 'ok');
    setEnv({
      SERVICE_API_KEY: daemon.ownerKey,
      SERVICE_URL: `${daemon.baseURL}/`,
      SERVICE_API_URL: DEAD_URL,
    });
    assert.equal(client().baseURL, daemon.baseURL);
    assert.equal((await client().health()).status, 'ok');
    setEnv({ SERVICE_API_KEY: daemon.ownerKey, SERVICE_API_URL: daemon.baseURL });
    assert.equal((await client().health()).status, 'ok');
    setEnv({ SERVICE_API_KEY: daemon.ownerKey, SERVICE_BASE_URL: DEAD_URL });
    assert.equal((await client({ baseURL: daemon.baseURL }).health()).status, 'ok');
  });

  it('device id: the argument, then SERVICE_DEVICE_ID, then the legacy SERVICE_DEVICE, then the derived id', () => {
    setEnv({
      SERVICE_API_KEY: 'k',
      SERVICE_DEVICE_ID: 'pinned-by-device-id-var',
      SERVICE_DEVICE: 'pinned-by-legacy-variable',
    });
    assert.equal(client().device.deviceId, 'pinned-by-device-id-var');
    setEnv({ SERVICE_API_KEY: 'k', SERVICE_DEVICE: 'pinned-by-legacy-variable' });
    assert.equal(client().device.deviceId, 'pinned-by-legacy-variable');
    assert.equal(client({ deviceId: 'pinned-by-the-argument' }).device.deviceId, 'pinned-by-the-argument');
    setEnv({ SERVICE_API_KEY: 'k' });
    assert.match(client().device.deviceId, /^[0-9a-f]{40}$/);
  });

  it('the legacy class name works against the daemon', async () => {
    setEnv({});
    const legacy = new DecisionClient({
      apiKey: daemon.ownerKey,
      baseURL: daemon.baseURL,
      bindingStore: new MemoryBindingStore(),
    });
    assert.equal((await legacy.health()).status, 'ok');
  });

  it('sends the Bearer key, X-Service-SDK-Version and the device headers on every request', async () => {
    setEnv({});
    const sdk = client({ apiKey: daemon.ownerKey, baseURL: proxy.baseURL });
    await sdk.me();
    await sdk.connectors.types();
    const seen = proxy.seen.slice(-2);
    assert.equal(seen.length, 2);
    for (const request of seen) {
      assert.equal(request.headers.authorization, `Bearer ${daemon.ownerKey}`);
      assert.equal(request.headers['x-service-sdk-version'], SDK_VERSION);
      assert.equal(request.headers['x-service-device-id'], sdk.device.deviceId);
      assert.equal(request.headers['x-service-platform'], process.platform);
      assert.match(String(request.headers['x-service-hostname-hash']), /^[0-9a-f]{64}$/);
    }
  });
});
