import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  ConflictError,
  DecisionService,
  EngineUnavailableError,
  MemoryBindingStore,
  RateLimitError,
  ValidationError,
} from '../src/index';
import { startDaemon, type Daemon } from './support/daemon';
import { FaultProxy } from './support/fault-proxy';

const CSV = 'a,b\n1,2\n';

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message, request_id: 'req_from_proxy' } });
}

describe('retries, timeouts and refusals against the real daemon behind a faulty proxy', () => {
  let daemon: Daemon;
  let proxy: FaultProxy;
  let sdk: DecisionService;

  function fresh(options: { maxRetries?: number; timeout?: number; apiKey?: string } = {}): DecisionService {
    return new DecisionService({
      apiKey: options.apiKey ?? daemon.ownerKey,
      baseURL: proxy.baseURL,
      bindingStore: new MemoryBindingStore(),
      ...options,
    });
  }

  before(async () => {
    daemon = await startDaemon({ SERVICE_PREVIEW_RATE_LIMIT: '1' });
    proxy = new FaultProxy(daemon.baseURL);
    await proxy.start();
  });

  beforeEach(() => {
    proxy.seen.length = 0;
    proxy.plan();
    sdk = fresh();
  });

  after(async () => {
    await proxy?.stop();
    await daemon?.stop();
  });

  it('a connection dropped before an answer is retried', async () => {
    proxy.plan({ kind: 'drop_before' }, { kind: 'drop_before' });
    assert.equal((await sdk.me()).auth, 'api_key');
    assert.equal(proxy.seen.length, 3);
  });

  it('an answer cut off mid-body is retried', async () => {
    proxy.plan({ kind: 'cut_answer' });
    const types = await sdk.connectors.types();
    assert.ok((types.types as string[]).includes('file'));
    assert.equal(proxy.seen.length, 2);
  });

  it('after maxRetries the connection error surfaces as APIConnectionError', async () => {
    proxy.plan({ kind: 'drop_before' }, { kind: 'drop_before' }, { kind: 'drop_before' });
    const error = await sdk.me().catch((e: unknown) => e);
    assert.ok(error instanceof APIConnectionError);
    assert.equal(error.status, undefined);
    assert.equal(error.code, 'connection_error');
    assert.equal(proxy.seen.length, 3);
  });

  it('a POST keeps one Idempotency-Key across its retries; each call has its own', async () => {
    proxy.plan({ kind: 'drop_after' });
    const created = await sdk.connectors.create({
      name: 'kept-key',
      connector_type: 'csv',
      config: { content: CSV },
    });
    assert.equal(created.name, 'kept-key');
    assert.equal(proxy.seen.length, 2);
    const [first, retry] = proxy.seen.map((request) => request.headers['idempotency-key']);
    assert.match(String(first), /^[0-9a-f-]{36}$/);
    assert.equal(retry, first);
    await sdk.connectors.create({ name: 'another', connector_type: 'csv', config: { content: CSV } });
    assert.notEqual(proxy.seen[2].headers['idempotency-key'], first);
    await sdk.me();
    assert.equal(proxy.seen[3].headers['idempotency-key'], undefined);
  });

  it('a POST whose answer was lost after the daemon created the object creates it once', async () => {
    proxy.plan({ kind: 'drop_after' });
    const created = await sdk.connectors.create({
      name: 'created-once',
      connector_type: 'csv',
      config: { content: CSV },
    });
    assert.equal(proxy.seen.length, 2);
    const named = (await sdk.connectors.list().toArray()).filter((c) => c.name === 'created-once');
    assert.deepEqual(
      named.map((c) => c.id),
      [created.id],
    );

    const before = (await sdk.jobs.list().toArray()).length;
    proxy.plan({ kind: 'drop_after' }, { kind: 'cut_answer' });
    const job = await sdk.jobs.create({
      request: {
        runs: 100,
        seed: 1,
        scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_net_value' },
      },
    });
    const jobs = await sdk.jobs.list().toArray();
    assert.equal(jobs.length, before + 1);
    assert.equal(jobs[0].job_id, job.job_id);
  });

  it('the caller may pass its own Idempotency-Key', async () => {
    await sdk.connectors.create(
      { name: 'own-key', connector_type: 'csv', config: { content: CSV } },
      { idempotencyKey: 'caller-chosen-key-1' },
    );
    assert.equal(proxy.seen[0].headers['idempotency-key'], 'caller-chosen-key-1');
  });

  it('a 503 with Retry-After is retried no sooner than it says', async () => {
    proxy.plan({
      kind: 'answer',
      status: 503,
      headers: { 'retry-after': '1' },
      body: errorBody('engine_busy', 'busy'),
    });
    assert.equal((await sdk.infrastructure()).engine_mode !== undefined, true);
    assert.equal(proxy.seen.length, 2);
    assert.ok(proxy.seen[1].at - proxy.seen[0].at >= 1000, 'waited the Retry-After second');
  });

  it('a 503 that outlasts the retries surfaces as EngineUnavailableError with its Retry-After', async () => {
    const once = fresh({ maxRetries: 0 });
    proxy.plan({
      kind: 'answer',
      status: 503,
      headers: { 'retry-after': '30' },
      body: errorBody('engine_unavailable', 'no engine'),
    });
    const error = await once
      .simulate({
        runs: 10,
        scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_net_value' },
      })
      .catch((e: unknown) => e);
    assert.ok(error instanceof EngineUnavailableError);
    assert.equal(error.code, 'engine_unavailable');
    assert.equal(error.retryAfterSeconds, 30);
    assert.equal(error.requestId, 'req_from_proxy');
  });

  it('a Retry-After longer than a minute is not waited out', async () => {
    proxy.plan({
      kind: 'answer',
      status: 503,
      headers: { 'retry-after': '3600' },
      body: errorBody('engine_busy', 'busy'),
    });
    await assert.rejects(sdk.health(), EngineUnavailableError);
    assert.equal(proxy.seen.length, 1);
  });

  it('408, 500 and the in-flight idempotency conflict are retried; other 409s and 422 are not', async () => {
    proxy.plan(
      { kind: 'answer', status: 408, body: errorBody('request_timeout', 'slow') },
      { kind: 'answer', status: 500, body: errorBody('internal_error', 'oops') },
    );
    assert.equal((await sdk.health()).status, 'ok');
    assert.equal(proxy.seen.length, 3);

    proxy.seen.length = 0;
    proxy.plan({ kind: 'answer', status: 409, body: errorBody('idempotency_key_in_use', 'in flight') });
    await sdk.connectors.create({ name: 'in-flight', connector_type: 'csv', config: { content: CSV } });
    assert.equal(proxy.seen.length, 2);

    proxy.seen.length = 0;
    proxy.plan({ kind: 'answer', status: 409, body: errorBody('conflict', 'no') });
    await assert.rejects(
      sdk.connectors.create({ name: 'x', connector_type: 'csv', config: { content: CSV } }),
      ConflictError,
    );
    assert.equal(proxy.seen.length, 1);

    proxy.seen.length = 0;
    await assert.rejects(
      sdk.connectors.create({ name: '', connector_type: 'csv', config: { content: CSV } }),
      ValidationError,
    );
    assert.equal(proxy.seen.length, 1);
  });

  it('a request with no answer in time raises APIConnectionTimeoutError after its retries', async () => {
    const impatient = fresh({ timeout: 300, maxRetries: 1 });
    proxy.plan({ kind: 'hang' }, { kind: 'hang' });
    const error = await impatient.me().catch((e: unknown) => e);
    assert.ok(error instanceof APIConnectionTimeoutError);
    assert.equal(error.code, 'connection_timeout');
    assert.equal(proxy.seen.length, 2);
  });

  it('a key revoked between calls answers 401 at once, not retried', async () => {
    const created = await fresh().apiKeys.create({ label: 'to-revoke' });
    const doomed = fresh({ apiKey: String(created.raw_key) });
    assert.equal((await doomed.me()).auth, 'api_key');
    await fresh().apiKeys.revoke(String(created.id));
    proxy.seen.length = 0;
    const error = await doomed.me().catch((e: unknown) => e);
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_api_key');
    assert.match(String(error.requestId), /.+/);
    assert.equal(proxy.seen.length, 1);
  });

  it("the daemon's own 429 carries Retry-After into RateLimitError", async () => {
    const once = fresh({ maxRetries: 0 });
    const inline = { connector_type: 'csv', config: { content: CSV } };
    assert.equal((await once.connectors.testInline(inline)).success, true);
    const error = await once.connectors.testInline(inline).catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.code, 'rate_limited');
    assert.ok(
      error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 1 && error.retryAfterSeconds <= 60,
    );
  });

  it('an answer that is not the service error body still gives an APIError with the status', async () => {
    proxy.plan({ kind: 'answer', status: 418, body: '<html>teapot</html>' });
    const error = await sdk.health().catch((e: unknown) => e);
    assert.ok(error instanceof APIError);
    assert.equal(error.status, 418);
    assert.equal(error.code, 'http_418');
  });
});
