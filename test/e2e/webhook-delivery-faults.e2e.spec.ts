import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { signupAccount } from '../factories/accounts';
import { SMALL_SIMULATION } from '../factories/simulations';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const TIMEOUT_MS = 1000;
const RETRY_BASE_MS = 500;
/** The schedule's smallest delay before attempt n+1: base · 2^(n−1) less the 20 % jitter. */
const minDelayMs = (failedAttempts: number) => RETRY_BASE_MS * 2 ** (failedAttempts - 1) * 0.8;

interface Attempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/**
 * While `isFailing`, a receiver that either holds every request open without answering (`hang`) or destroys the
 * connection as soon as the request headers arrive, before the body is read (`drop`); otherwise it reads the body
 * and answers 200. Counts the requests it failed and keeps those it acknowledged.
 */
interface FaultyReceiver {
  url: string;
  isFailing: boolean;
  failed: { webhookId: string }[];
  readonly acknowledged: { webhookId: string; jobId: string; body: string }[];
  close(): Promise<void>;
}

async function startFaultyReceiver(fault: 'hang' | 'drop'): Promise<FaultyReceiver> {
  const server: Server = createServer();
  const receiver: FaultyReceiver = {
    url: '',
    isFailing: true,
    failed: [],
    acknowledged: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (receiver.isFailing) {
      receiver.failed.push({ webhookId: String(req.headers['webhook-id']) });
      if (fault === 'drop') req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.acknowledged.push({
        webhookId: String(req.headers['webhook-id']),
        jobId: String(req.headers['x-job-id']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

describe('job.completed delivery against receivers that hang or drop the connection', () => {
  let t: TestApp;
  let key: string;
  let hanging: FaultyReceiver;
  let dropping: FaultyReceiver;

  beforeAll(async () => {
    hanging = await startFaultyReceiver('hang');
    dropping = await startFaultyReceiver('drop');
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: [hanging.url, dropping.url].map((url) => new URL(url).host).join(','),
      SERVICE_WEBHOOK_CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
      SERVICE_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      SERVICE_WEBHOOK_MAX_ATTEMPTS: '8',
    });
    key = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
    await hanging.close();
    await dropping.close();
  });

  const submitJob = async (callbackUrl: string): Promise<string> => {
    const res = await t.request('POST', '/v1/jobs', {
      token: key,
      body: { callback_url: callbackUrl, request: SMALL_SIMULATION },
    });
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };
  /** Fails the first two requests, then lets the receiver recover and waits for the delivery to be recorded. */
  const deliverAfterTwoFailures = async (receiver: FaultyReceiver, jobId: string) => {
    await waitUntil(() => receiver.failed.length >= 2, 30_000, 'two failed attempts');
    receiver.isFailing = false;
    return waitUntil(
      async () => {
        const res = await t.request('GET', `/v1/webhooks/deliveries?job_id=${jobId}`, { token: key });
        const [delivery] = res.body.deliveries;
        return delivery?.status === 'delivered' ? delivery : undefined;
      },
      30_000,
      `delivery of job ${jobId}`,
    );
  };
  const gapsMs = (attempts: Attempt[]) =>
    attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(attempts[i].at));

  it('records a receiver that does not answer in time as a timeout and retries on the backoff schedule', async () => {
    const jobId = await submitJob(`${hanging.url}/hangs`);
    const delivery = await deliverAfterTwoFailures(hanging, jobId);

    const attempts = delivery.attempts as Attempt[];
    const failed = attempts.slice(0, -1);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const attempt of failed) {
      expect(attempt).toMatchObject({
        status_code: null,
        error: `The receiver did not answer within ${TIMEOUT_MS} ms.`,
      });
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    }
    expect(attempts[attempts.length - 1]).toMatchObject({ status_code: 200, error: null });
    // Each pause starts when the timed-out attempt ends: a gap is at least the timeout plus that step's backoff.
    gapsMs(attempts).forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(TIMEOUT_MS + minDelayMs(i + 1)));

    expect(hanging.acknowledged).toHaveLength(1);
    const ids = [...hanging.failed, ...hanging.acknowledged].map((r) => r.webhookId);
    expect(new Set(ids)).toEqual(new Set([delivery.webhook_id]));
    expect(delivery.next_attempt_at).toBeNull();
  });

  it('records a connection closed mid-request as an error, retries, and delivers exactly once after recovery', async () => {
    const jobId = await submitJob(`${dropping.url}/drops`);
    const delivery = await deliverAfterTwoFailures(dropping, jobId);

    const attempts = delivery.attempts as Attempt[];
    const failed = attempts.slice(0, -1);
    expect(failed.length).toBe(dropping.failed.length);
    for (const attempt of failed) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/^The receiver could not be reached: /);
    }
    expect(attempts[attempts.length - 1]).toMatchObject({ status_code: 200, error: null });
    gapsMs(attempts).forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(minDelayMs(i + 1)));

    expect(dropping.acknowledged).toHaveLength(1);
    const [ack] = dropping.acknowledged;
    expect(ack).toMatchObject({ webhookId: delivery.webhook_id, jobId });
    expect(JSON.parse(ack.body)).toMatchObject({ event: 'job.completed', job_id: jobId });
    // Past a few poll cycles of the outbox, the acknowledged message has not been sent again.
    await new Promise((r) => setTimeout(r, 1500));
    expect(dropping.acknowledged).toHaveLength(1);
  });
});
