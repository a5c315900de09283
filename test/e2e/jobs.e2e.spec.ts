import { createHmac } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { SMALL_SIMULATION } from '../factories/simulations';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

async function signup(t: TestApp, email: string): Promise<string> {
  const res = await t.request('POST', '/auth/signup', {
    body: { email, password: 'correct horse battery staple', name: 'Tester' },
  });
  expect(res.status).toBe(201);
  return res.body.api_key.raw_key as string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

describe('async jobs and job.completed callbacks', () => {
  let t: TestApp;
  let key: string;
  let receiver: Receiver;
  let handler: Handler = (_req, res) => res.end('ok');

  beforeAll(async () => {
    receiver = await startReceiver((req, res, body) => handler(req, res, body));
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_WEBHOOK_RETRY_BASE_MS: '50',
      SERVICE_WEBHOOK_MAX_ATTEMPTS: '4',
    });
    key = await signup(t, 'jobs-owner@example.test');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    handler = (_req, res) => res.end('ok');
  });

  const submit = (body: unknown, token = key) => t.request('POST', '/v1/jobs', { body, token });
  const poll = (id: string, token = key) =>
    waitUntil(
      async () => {
        const res = await t.request('GET', `/v1/jobs/${id}`, { token });
        return ['succeeded', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
      },
      20000,
      `job ${id} to finish`,
    );
  const deliveriesOf = async (jobId: string) =>
    (await t.request('GET', `/v1/webhooks/deliveries?job_id=${jobId}`, { token: key })).body.deliveries;

  it('runs a job, answers its poll URL and delivers one signed job.completed callback', async () => {
    const res = await submit({ callback_url: `${receiver.url}/hook-ok`, request: SMALL_SIMULATION });
    expect(res.status).toBe(202);
    expect(res.body.poll_url).toBe(`/v1/jobs/${res.body.job_id}`);

    const job = await poll(res.body.job_id);
    expect(job.status).toBe('succeeded');
    expect(job.run_id).toMatch(/^run_/);
    expect(['proceed', 'do_nothing']).toContain(job.result.recommended_action);
    expect(job.result.seed).toBe(42);

    const [delivery] = await waitUntil(async () => {
      const list = await deliveriesOf(job.job_id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivery.attempts).toHaveLength(1);
    const calls = receiver.requests.filter((r) => r.url === '/hook-ok');
    expect(calls).toHaveLength(1);
    const call = calls[0];
    const body = JSON.parse(call.body.toString());
    expect(body).toMatchObject({
      event: 'job.completed',
      job_id: job.job_id,
      run_id: job.run_id,
      result: { recommended_action: job.result.recommended_action, confidence: job.result.confidence },
    });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(call.headers['x-webhook-event']).toBe('job.completed');
    expect(call.headers['x-job-id']).toBe(job.job_id);
    expect(call.headers['webhook-id']).toBe(delivery.webhook_id);

    const secret = (await t.request('GET', '/v1/webhooks/signing-secret', { token: key })).body
      .signing_secret;
    const expected = `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(call.body).digest('hex')}`;
    expect(call.headers['x-webhook-signature']).toBe(expected);
  });

  it('retries non-2xx answers with the same webhook-id until the receiver accepts', async () => {
    let calls = 0;
    handler = (req, res) => {
      if (req.url !== '/hook-retry') return void res.end('ok');
      calls += 1;
      if (calls === 1) res.writeHead(500).end('down');
      else if (calls === 2) res.writeHead(301, { location: 'http://127.0.0.1:1/' }).end();
      else res.end('ok');
    };
    const res = await submit({ callback_url: `${receiver.url}/hook-retry`, request: SMALL_SIMULATION });
    const [delivery] = await waitUntil(async () => {
      const list = await deliveriesOf(res.body.job_id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 301, 200]);
    const ids = receiver.requests.filter((r) => r.url === '/hook-retry').map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([delivery.webhook_id, delivery.webhook_id, delivery.webhook_id]);
  });

  it('stops at 410 Gone', async () => {
    handler = (_req, res) => res.writeHead(410).end();
    const res = await submit({ callback_url: `${receiver.url}/hook-gone`, request: SMALL_SIMULATION });
    const [delivery] = await waitUntil(async () => {
      const list = await deliveriesOf(res.body.job_id);
      return list[0]?.status === 'gone' ? list : undefined;
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.next_attempt_at).toBeNull();
  });

  it('gives up after the configured attempts and can be redelivered', async () => {
    handler = (_req, res) => res.writeHead(503, { 'retry-after': '0' }).end();
    const res = await submit({ callback_url: `${receiver.url}/hook-down`, request: SMALL_SIMULATION });
    const [delivery] = await waitUntil(async () => {
      const list = await deliveriesOf(res.body.job_id);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery.attempts).toHaveLength(4);
    handler = (_req, res) => res.end('ok');
    const again = await t.request('POST', `/v1/webhooks/deliveries/${delivery.id}/redeliver`, { token: key });
    expect(again.status).toBe(202);
    await waitUntil(async () => (await deliveriesOf(res.body.job_id))[0]?.status === 'delivered');
    expect((await deliveriesOf(res.body.job_id))[0].attempts).toHaveLength(5);
  });

  it('records a callback the egress policy blocks as blocked, and the job still succeeds', async () => {
    const res = await submit({ callback_url: 'http://10.255.255.1:9/hook', request: SMALL_SIMULATION });
    expect(res.status).toBe(202);
    const job = await poll(res.body.job_id);
    expect(job.status).toBe('succeeded');
    const [delivery] = await waitUntil(async () => {
      const list = await deliveriesOf(job.job_id);
      return list[0]?.status === 'blocked' ? list : undefined;
    });
    expect(delivery.attempts[0].error).toMatch(/egress/i);
  });

  it('refuses invalid bodies and non-http callbacks with 422', async () => {
    const cases: [unknown, string][] = [
      [{ request: { ...SMALL_SIMULATION, runs: 0 } }, 'request.runs'],
      [
        { request: { scenario: { variables: {}, objective: 'maximize_net_value' } } },
        'request.scenario.variables',
      ],
      [{ callback_url: 'ftp://example.test/x', request: SMALL_SIMULATION }, 'callback_url'],
      [{ callback_url: 'not a url', request: SMALL_SIMULATION }, 'callback_url'],
      [{}, 'request'],
    ];
    for (const [body, field] of cases) {
      const res = await submit(body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('hides another organization’s jobs', async () => {
    const other = await signup(t, 'jobs-other@example.test');
    const res = await submit({ request: SMALL_SIMULATION });
    expect((await t.request('GET', `/v1/jobs/${res.body.job_id}`, { token: other })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/jobs/${res.body.job_id}`, { token: other })).status).toBe(404);
    const mine = await t.request('GET', '/v1/jobs', { token: other });
    expect(mine.body.jobs).toEqual([]);
  });

  it('lists the organization’s jobs newest first', async () => {
    const a = await submit({ request: SMALL_SIMULATION });
    const b = await submit({ request: SMALL_SIMULATION });
    const list = await t.request('GET', '/v1/jobs?limit=2', { token: key });
    expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([b.body.job_id, a.body.job_id]);
    expect(list.body.next_cursor).toBe(a.body.job_id);
  });
});

describe('job cancellation', () => {
  it('cancels a queued job and never runs it', async () => {
    const t = await startTestApp({ SERVICE_JOB_CONCURRENCY: '1' });
    try {
      const key = await signup(t, 'cancel@example.test');
      const slow = { ...SMALL_SIMULATION, runs: 3_000_000 };
      await t.request('POST', '/v1/jobs', { body: { request: slow }, token: key });
      const queued = await t.request('POST', '/v1/jobs', { body: { request: SMALL_SIMULATION }, token: key });
      const cancelled = await t.request('DELETE', `/v1/jobs/${queued.body.job_id}`, { token: key });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      const again = await t.request('DELETE', `/v1/jobs/${queued.body.job_id}`, { token: key });
      expect(again.status).toBe(409);
      await new Promise((r) => setTimeout(r, 300));
      const job = await t.request('GET', `/v1/jobs/${queued.body.job_id}`, { token: key });
      expect(job.body.status).toBe('cancelled');
      expect(job.body.run_id).toBeNull();
    } finally {
      await t.close();
    }
  });
});
