import { join } from 'node:path';
import { REPLICA_LOCK } from '../../src/common/database/replica-lock';
import { signupAccount, TestAccount } from '../factories/accounts';
import { SMALL_SIMULATION } from '../factories/simulations';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { createTestDatabase, queryTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { HttpResult, makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const JOBS = 12;

/**
 * PostgreSQL restarted under load, seen from one daemon: a loopback proxy between the daemon and the machine's
 * server resets every connection and refuses new ones for a while, so the shared server and other test runs are
 * untouched. `pg_terminate_backend` is the server-side kill of the same daemon's sessions.
 */
describe('a PostgreSQL outage under load', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let receiver: Receiver;
  let t: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    db = await createTestDatabase();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    receiver = await startReceiver();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    t = await startTestApp({
      ...sharedSecretsEnv(join(makeTempDir('ds-outage-keys-'), 'keys')),
      SERVICE_DATABASE_URL: viaProxy.toString(),
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}`,
      SERVICE_WEBHOOK_RETRY_BASE_MS: '50',
      // A claim whose commit the daemon never heard of (the connection reset on COMMIT) resumes when its lease runs out.
      SERVICE_WORK_LEASE_S: '5',
    });
    owner = await signupAccount(t);
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await receiver?.close();
    await db?.drop();
  });

  const submitJob = () =>
    t.request('POST', '/v1/jobs', {
      token: owner.apiKey,
      body: { callback_url: `${receiver.url}/done`, request: SMALL_SIMULATION },
    });

  /** The daemon holds the replica lock again (what keeps `rekey` from resealing under it), once it could reconnect. */
  const replicaLockRetaken = () =>
    waitUntil(
      async () => {
        const held = await queryTestDatabase(
          db.url,
          "select 1 from pg_locks where locktype = 'advisory' and granted and objid = $1 and database = (select oid from pg_database where datname = $2)",
          [REPLICA_LOCK, db.name],
        );
        return held.length === 1;
      },
      15000,
      'the replica lock taken again',
    );

  function expectStoreUnavailable(res: HttpResult<any>): void {
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('store_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.error.request_id).toMatch(/^req_/);
  }

  it('answers 503 store_unavailable while the database is gone, then serves again and finishes every job once', async () => {
    const accepted: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await submitJob();
      expect(res.status).toBe(202);
      accepted.push(res.body.job_id);
    }

    // Requests in flight when the connections are reset: each one answers, none with a 500.
    const inFlight = Promise.all([
      ...Array.from({ length: 8 }, () => t.request('GET', '/v1/jobs?limit=50', { token: owner.apiKey })),
      ...Array.from({ length: 4 }, () => submitJob()),
    ]);
    await proxy.cut();
    for (const res of await inFlight) {
      if (res.status >= 500) expectStoreUnavailable(res);
      else expect([200, 202]).toContain(res.status);
      if (res.status === 202) accepted.push(res.body.job_id);
    }

    expectStoreUnavailable(await t.request('GET', `/v1/jobs/${accepted[0]}`, { token: owner.apiKey }));
    expectStoreUnavailable(await submitJob());
    expectStoreUnavailable(await t.request('GET', '/v1/api-keys', { token: owner.apiKey }));
    const notReady = await t.request('GET', '/v1/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ status: 'not_ready', store: { status: 'unavailable' } });
    expect((await t.request('GET', '/v1/health')).status).toBe(200);

    await new Promise((r) => setTimeout(r, 3000));
    expectStoreUnavailable(await t.request('GET', `/v1/jobs/${accepted[0]}`, { token: owner.apiKey }));
    await proxy.resume();

    // The same daemon, not restarted, serves again.
    const ready = await waitUntil(
      async () => {
        const res = await t.request('GET', '/v1/ready');
        return res.status === 200 ? res.body : undefined;
      },
      15000,
      'readiness after the outage',
    );
    expect(ready.store).toEqual({ status: 'ok' });
    await replicaLockRetaken();
    const after = await submitJob();
    expect(after.status).toBe(202);
    accepted.push(after.body.job_id);

    // Every job accepted before the outage (and the one after) finishes once, with one callback each.
    const statuses = await waitUntil(
      async () => {
        const res = await t.request('GET', '/v1/jobs?limit=100', { token: owner.apiKey });
        if (res.status !== 200) return undefined;
        const byId = new Map<string, string>(
          (res.body.jobs as Array<{ job_id?: string; id?: string; status: string }>).map((j) => [
            (j.job_id ?? j.id)!,
            j.status,
          ]),
        );
        return accepted.every((id) => byId.get(id) === 'succeeded') ? byId : undefined;
      },
      30000,
      'every accepted job to succeed',
    );
    expect(accepted.map((id) => statuses.get(id))).toEqual(accepted.map(() => 'succeeded'));
    const callbacksFor = () =>
      receiver.requests.filter((r) => accepted.includes(r.headers['x-job-id'] as string));
    await waitUntil(
      () => new Set(callbacksFor().map((r) => r.headers['x-job-id'])).size === accepted.length,
      20000,
      'one callback per job',
    );
    const rows = await queryTestDatabase<{ status: string }>(
      db.url,
      'select status from jobs where id = any($1)',
      [accepted],
    );
    expect(rows.map((r) => r.status)).toEqual(accepted.map(() => 'succeeded'));
    const webhookIds = callbacksFor().map((r) => r.headers['webhook-id']);
    expect(new Set(webhookIds).size).toBe(accepted.length);
    expect(webhookIds).toHaveLength(accepted.length);
  });

  it('recovers when the server kills the daemon’s sessions (pg_terminate_backend)', async () => {
    expect((await t.request('GET', '/v1/api-keys', { token: owner.apiKey })).status).toBe(200);
    const killed = await queryTestDatabase<{ killed: boolean }>(
      db.url,
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [db.name],
    );
    expect(killed.length).toBeGreaterThan(0);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.request('GET', '/v1/api-keys', { token: owner.apiKey })),
    );
    for (const res of answers) {
      if (res.status >= 500) expectStoreUnavailable(res);
      else expect(res.status).toBe(200);
    }
    await waitUntil(
      async () => (await t.request('GET', '/v1/api-keys', { token: owner.apiKey })).status === 200,
      10000,
      'service after the sessions were killed',
    );
    const job = await submitJob();
    expect(job.status).toBe(202);
    await replicaLockRetaken();
  });
});
