import { ServerResponse } from 'node:http';
import { Appliance } from '../support/appliance';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { pushTrigger, queryTrigger, TRIGGER_SIMULATION } from '../factories/triggers';
import { REORDER_SIMULATION } from '../factories/simulations';
import { requestFrom } from '../support/source-address';
import { httpRequest, makeTempDir } from '../support/test-app';
import { waitUntil } from '../support/wait';

/**
 * Issue 36's "Done when": one organization floods the appliance — logins for unknown accounts from many addresses
 * (password hashing), fires aimed at a receiver that never answers (the webhook outbox) and heavy scheduled triggers
 * (the engine pool) — while another organization's reads, simulations and trigger.fired keep going. Latency is judged
 * against the same requests measured unloaded in this test, with a wide margin: the bound catches requests queued
 * behind the flood (seconds), not a busy 2-core host.
 */
const SAMPLES = 40;
const SIMULATIONS = 5;
/** The quiet tenant's p99 under the flood may be this many times its unloaded p99, plus the slack below. */
const P99_FACTOR = 10;
const P99_SLACK_MS = 2500;
const LOGIN_ADDRESSES = 20;
const LOGIN_LOOPS = 5;

jest.setTimeout(180_000);

function p99(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

describe('one tenant flooding webhooks, triggers and logins', () => {
  let fast: Receiver;
  let slow: Receiver;
  const hanging: ServerResponse[] = [];
  let appliance: Appliance;

  beforeAll(async () => {
    fast = await startReceiver();
    slow = await startReceiver((_req, res) => hanging.push(res));
    appliance = new Appliance(makeTempDir('ds-fairness-'), {
      SERVICE_EGRESS_ALLOW: [fast, slow].map((r) => `127.0.0.1:${r.port}`).join(','),
      SERVICE_WEBHOOK_CALLBACK_TIMEOUT_MS: '60000',
      ENGINE_POOL_SIZE: '2',
    });
  });
  afterAll(async () => {
    await appliance.kill();
    for (const res of hanging) res.destroy();
    await Promise.all([fast.close(), slow.close()]);
  });

  it("keeps the other tenant's p99 within its budget and its trigger.fired flowing", async () => {
    await appliance.start();
    await appliance.signup('quiet@example.test');
    const quietKey = appliance.key;
    await appliance.signup('flood@example.test');
    const floodKey = appliance.key;
    const as = (key: string, method: string, path: string, body?: unknown) =>
      httpRequest(appliance.url, method, path, { body, token: key });

    const quietTrigger = (
      await as(quietKey, 'POST', '/v1/triggers', pushTrigger({ webhook_url: `${fast.url}/quiet` }))
    ).body.id as string;
    const floodTrigger = (
      await as(floodKey, 'POST', '/v1/triggers', pushTrigger({ webhook_url: `${slow.url}/flood` }))
    ).body.id as string;
    const datasetId = await appliance.stockDataset('sku,stock\nsku0,80');

    const simulation = REORDER_SIMULATION;
    const quietRequests = async () => {
      const latencies: number[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < SAMPLES + SIMULATIONS; i++) {
        const started = performance.now();
        const res =
          i % 8 === 7
            ? await as(quietKey, 'POST', '/v1/simulate', simulation)
            : await as(quietKey, 'GET', '/v1/connectors?limit=1');
        latencies.push(performance.now() - started);
        statuses.push(res.status);
      }
      return { latencies, statuses };
    };

    await quietRequests();
    const baseline = await quietRequests();
    expect(baseline.statuses.every((s) => s === 200)).toBe(true);

    let flooding = true;
    const loginStatuses: number[] = [];
    // More logins in flight than the hashing queue holds, from addresses that each stay under their login limit.
    const loginLoop = async (loop: number) => {
      for (let round = 0; flooding; round++) {
        const batch = await Promise.all(
          Array.from({ length: LOGIN_ADDRESSES }, (_, i) =>
            requestFrom(appliance.url, `127.0.8.${i + 1}`, 'POST', '/auth/login', {
              body: { email: `nobody-${loop}-${round}-${i}@example.test`, password: 'not the password!!' },
            }),
          ),
        );
        loginStatuses.push(...batch.map((r) => r.status));
      }
    };
    const logins = Promise.all(Array.from({ length: LOGIN_LOOPS }, (_, loop) => loginLoop(loop)));
    const heavy = { ...TRIGGER_SIMULATION, runs: 1_000_000 };
    for (let i = 0; i < 8; i++) {
      const res = await as(
        floodKey,
        'POST',
        '/v1/triggers',
        queryTrigger(datasetId, { name: `heavy ${i}`, schedule: { interval_s: 10 }, simulation: heavy }),
      );
      expect(res.status).toBe(201);
    }
    const fires = await Promise.all(
      Array.from({ length: 40 }, () =>
        as(floodKey, 'POST', `/v1/triggers/${floodTrigger}/fire`, { current_value: 42 }),
      ),
    );
    expect(fires.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    await waitUntil(() => hanging.length >= 4, 30_000, 'the flood holding the slow receiver');

    expect(
      (await as(quietKey, 'POST', `/v1/triggers/${quietTrigger}/fire`, { current_value: 42 })).status,
    ).toBe(200);
    const loaded = await quietRequests();
    await waitUntil(
      () => fast.requests.some((r) => r.url === '/quiet'),
      30_000,
      "the quiet tenant's trigger.fired",
    );
    // Every flood delivery is still hanging: the quiet one went past them, not after them.
    expect(slow.requests.length).toBe(hanging.length);
    flooding = false;
    await logins;

    const budget = P99_FACTOR * p99(baseline.latencies) + P99_SLACK_MS;
    console.log(
      `tenant fairness: quiet p99 ${p99(baseline.latencies).toFixed(0)} ms unloaded, ` +
        `${p99(loaded.latencies).toFixed(0)} ms under the flood (budget ${budget.toFixed(0)} ms); ` +
        `${loginStatuses.length} flood logins, ${loginStatuses.filter((s) => s === 429).length} refused`,
    );
    expect(loaded.statuses).toEqual(baseline.statuses);
    expect(p99(loaded.latencies)).toBeLessThanOrEqual(budget);
    expect(loginStatuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});
