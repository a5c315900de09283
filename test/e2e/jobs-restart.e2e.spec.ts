import { IncomingMessage, ServerResponse } from 'node:http';
import { makeTempDir, httpRequest } from '../support/test-app';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { waitUntil } from '../support/wait';

const SIMULATION = {
  runs: 1000,
  seed: 7,
  scenario: { variables: { a: { low: 1, high: 2 } }, objective: 'maximize_net_value' },
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One appliance data dir, started and SIGKILLed as a real process. */
class Appliance {
  daemon?: DaemonProcess;
  url = '';
  key = '';
  constructor(
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    this.daemon = spawnDaemon({
      ...this.env,
      SERVICE_PORT: '0',
      SERVICE_DATA_DIR: this.dataDir,
      ENGINE_POOL_SIZE: '1',
    });
    this.url = await waitForStart(this.daemon, 60000);
  }

  async kill(): Promise<void> {
    this.daemon?.child.kill('SIGKILL');
    await this.daemon?.exited;
  }

  call(method: string, path: string, body?: unknown) {
    return httpRequest(this.url, method, path, { body, token: this.key || undefined });
  }

  async signup(): Promise<void> {
    const res = await this.call('POST', '/auth/signup', {
      email: 'restart@example.test',
      password: 'correct horse battery staple',
      name: 'Restart',
    });
    this.key = res.body.api_key.raw_key;
  }

  async deliveries(jobId: string) {
    return (await this.call('GET', `/v1/webhooks/deliveries?job_id=${jobId}`)).body.deliveries;
  }
}

jest.setTimeout(180_000);

describe('jobs and callbacks across a hard kill', () => {
  let receiver: Receiver;
  let handler: Handler;
  let appliance: Appliance;

  beforeEach(async () => {
    handler = (_req, res) => res.end('ok');
    receiver = await startReceiver((req, res) => handler(req, res));
    appliance = new Appliance(makeTempDir(), {
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_WEBHOOK_RETRY_BASE_MS: '100',
      // Work held by the killed daemon resumes when its leases run out, not by the restart releasing them.
      SERVICE_WORK_LEASE_S: '3',
    });
    await appliance.start();
    await appliance.signup();
  });
  afterEach(async () => {
    await appliance.kill();
    await receiver.close();
  });

  it('resumes a pending delivery after SIGKILL and delivers it exactly once', async () => {
    handler = (_req, res) => res.writeHead(503).end();
    const job = await appliance.call('POST', '/v1/jobs', {
      callback_url: `${receiver.url}/cb`,
      request: SIMULATION,
    });
    await waitUntil(async () => (await appliance.deliveries(job.body.job_id))[0]?.attempts.length >= 1);
    await appliance.kill();

    const failedAttempts = receiver.requests.length;
    handler = (_req, res) => res.end('ok');
    await appliance.start();
    const [delivery] = await waitUntil(async () => {
      const list = await appliance.deliveries(job.body.job_id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(receiver.requests.length).toBe(failedAttempts + 1);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([delivery.webhook_id]),
    );
  });

  it('never sends an acknowledged delivery again after a restart', async () => {
    const job = await appliance.call('POST', '/v1/jobs', {
      callback_url: `${receiver.url}/cb`,
      request: SIMULATION,
    });
    await waitUntil(async () => (await appliance.deliveries(job.body.job_id))[0]?.status === 'delivered');
    await appliance.kill();
    await appliance.start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);
  });

  it('re-sends, with the same webhook-id, a delivery in flight when the daemon died', async () => {
    let first = true;
    handler = (_req, res) => {
      if (first) {
        first = false;
        void appliance.kill();
        return;
      }
      res.end('ok');
    };
    const job = await appliance.call('POST', '/v1/jobs', {
      callback_url: `${receiver.url}/cb`,
      request: SIMULATION,
    });
    await waitUntil(() => receiver.requests.length === 1 || undefined);
    await appliance.daemon?.exited;
    await appliance.start();
    const [delivery] = await waitUntil(async () => {
      const list = await appliance.deliveries(job.body.job_id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      delivery.webhook_id,
      delivery.webhook_id,
    ]);
  });

  it('resumes a job that was running when the daemon died, once its lease runs out, under the same id', async () => {
    const slow = {
      ...SIMULATION,
      runs: 10_000_000,
      scenario: { ...SIMULATION.scenario, model: 'a*a*a + sqrt(a)' },
    };
    const job = await appliance.call('POST', '/v1/jobs', { request: slow });
    // 10 s was once too short in a CI run with both cores busy (the package suite beside it).
    await waitUntil(
      async () => (await appliance.call('GET', `/v1/jobs/${job.body.job_id}`)).body.status === 'running',
      30000,
      'the job running',
    );
    await appliance.kill();
    await appliance.start();
    const done = await waitUntil(async () => {
      const res = await appliance.call('GET', `/v1/jobs/${job.body.job_id}`);
      return res.body.status === 'succeeded' ? res.body : undefined;
    }, 60000);
    expect(done.job_id).toBe(job.body.job_id);
    expect(done.result.runs).toBe(10_000_000);
  });
});
