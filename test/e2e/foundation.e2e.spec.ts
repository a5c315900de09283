import { statSync } from 'node:fs';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { spawnDaemon, waitForStart } from '../support/daemon-process';

describe('daemon foundation over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers health publicly with an RFC 3339 timestamp', async () => {
    const res = await t.request('GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  });

  it('generates a request id, or echoes a safe one', async () => {
    const generated = await t.request('GET', '/v1/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const echoed = await t.request('GET', '/v1/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const unsafe = await t.request('GET', '/v1/health', { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('denies /v1/me without a credential, with the error body and request id', async () => {
    const res = await t.request('GET', '/v1/me');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('authentication_required');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(typeof res.body.error.message).toBe('string');
  });

  it('answers unknown routes with 404 not_found, and a wrong method on a known one with 405', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['PATCH', '/v1/unknown/thing'],
    ]) {
      const res = await t.request(method, path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const res = await t.request('DELETE', '/v1/health');
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await t.request('POST', '/auth/login', {
      rawBody: '{"broken": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('answers a 64 MiB body with 413 payload_too_large and keeps serving', async () => {
    const res = await t.request('POST', '/auth/login', {
      rawBody: Buffer.alloc(64 * 1024 * 1024, 0x20),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect((await t.request('GET', '/v1/health')).status).toBe(200);
  });

  it('exposes Prometheus metrics with request counters and a duration histogram', async () => {
    await t.request('GET', '/v1/health');
    const res = await t.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/health",status="200"\} \d+/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('creates the data dir with mode 0700', () => {
    expect(statSync(t.dataDir).mode & 0o777).toBe(0o700);
  });
});

describe('metrics token', () => {
  it('guards /metrics when SERVICE_METRICS_TOKEN is set', async () => {
    const t = await startTestApp({ SERVICE_METRICS_TOKEN: 'metrics-secret-token' });
    try {
      expect((await t.request('GET', '/metrics')).body.error.code).toBe('authentication_required');
      expect((await t.request('GET', '/metrics', { token: 'wrong' })).status).toBe(401);
      expect((await t.request('GET', '/metrics', { token: 'metrics-secret-token' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('the built daemon process', () => {
  it('refuses a bad environment value with exit code != 0 naming the variable', async () => {
    const daemon = spawnDaemon({ SERVICE_PORT: 'abc', SERVICE_DATA_DIR: makeTempDir() });
    const code = await daemon.exited;
    expect(code).not.toBe(0);
    expect(daemon.output()).toContain('SERVICE_PORT');
  });

  it('starts, logs JSON lines with redacted credentials, and exits 0 on SIGTERM', async () => {
    const dataDir = `${makeTempDir()}/nested/data`;
    const daemon = spawnDaemon({ SERVICE_PORT: '0', SERVICE_DATA_DIR: dataDir });
    const url = await waitForStart(daemon);
    const res = await fetch(`${url}/v1/me`, { headers: { authorization: 'Bearer sk_live_do_not_log_me' } });
    expect(res.status).toBe(401);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const lines = daemon
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.event === 'http_request' && l.route === '/v1/me')).toMatchObject({
      method: 'GET',
      status: 401,
    });
    expect(lines.some((l) => l.event === 'daemon_stopping')).toBe(true);
    // Stopped, it exits by its event loop emptying (src/main.ts, exitWhenDrained): no handle is left behind.
    expect(lines.some((l) => l.event === 'daemon_stopped')).toBe(true);
    expect(lines.some((l) => l.event === 'daemon_exit_forced')).toBe(false);
    expect(daemon.output()).not.toContain('do_not_log_me');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
