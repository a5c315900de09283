import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadConfig } from '../../src/common/config';
import { pushTrigger } from '../factories/triggers';
import { SMALL_SIMULATION } from '../factories/simulations';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { createTestDatabase, queryTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';
import { httpRequest, HttpResult, makeTempDir } from '../support/test-app';

/**
 * Issue 15's "Done when": a retried POST with the same Idempotency-Key creates exactly one thing, even when the
 * first answer was lost after commit. The built daemon is SIGKILLed, and its store is left as a kill between the
 * creation's commit and the stored answer leaves it: every key in flight, its claim lapsed, no answer. The restarted
 * daemon must answer each retry with what the first run created, and create nothing more.
 */
const ON_POSTGRES = process.env.TEST_STORE === 'postgresql';

jest.setTimeout(180_000);

describe('Idempotency-Key retried after the daemon died between the commit and the stored answer', () => {
  const dataDir = makeTempDir('ds-idem-crash-');
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let daemon: DaemonProcess | undefined;
  let url = '';
  let token = '';

  const start = async () => {
    daemon = spawnDaemon(env);
    url = await waitForStart(daemon, 90_000);
  };
  const kill = async () => {
    if (!daemon || daemon.child.exitCode !== null || daemon.child.signalCode !== null) return;
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  };
  const call = <T = any>(
    method: string,
    path: string,
    body?: unknown,
    key?: string,
  ): Promise<HttpResult<T>> =>
    httpRequest<T>(url, method, path, {
      body,
      token,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const isReplay = (res: HttpResult<any>): boolean => res.headers.get('idempotent-replayed') === 'true';

  /** What the kill leaves: every claim in flight since an hour (so lapsed), without an answer. */
  async function leaveEveryKeyInFlight(): Promise<number> {
    const lapsed = new Date(Date.now() - 3600_000);
    if (database) {
      const rows = await queryTestDatabase(
        database.url,
        `update idempotency_keys set state = 'in_flight', status_code = null, response_sealed = null,
           lease_until = $1 returning id`,
        [lapsed],
      );
      return rows.length;
    }
    const db = new DatabaseSync(loadConfig({ NODE_ENV: 'test', SERVICE_DATA_DIR: dataDir }).databaseFile);
    try {
      return db
        .prepare(
          `update idempotency_keys set state = 'in_flight', status_code = null, response_sealed = null,
             lease_until = ?`,
        )
        .run(lapsed.getTime()).changes as number;
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    database = ON_POSTGRES ? await createTestDatabase() : undefined;
    env = {
      SERVICE_PORT: '0',
      SERVICE_DATA_DIR: dataDir,
      ENGINE_POOL_SIZE: '1',
      ...(database ? { ...sharedSecretsEnv(join(dataDir, 'keys')), SERVICE_DATABASE_URL: database.url } : {}),
    };
    await start();
  });
  afterAll(async () => {
    await kill();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('answers every retry with what the first run created, and creates nothing twice', async () => {
    const signup = await call('POST', '/auth/signup', {
      email: 'idem-crash@example.test',
      password: 'correct horse battery staple',
      name: 'Idempotency crash',
    });
    expect(signup.status).toBe(201);
    token = signup.body.api_key.raw_key;
    const ownKeyId = signup.body.api_key.id as string;

    const job = { request: SMALL_SIMULATION };
    const connector = {
      name: 'stock',
      connector_type: 'file',
      config: { file_type: 'csv', content: 'sku,stock\na,80' },
    };
    const trigger = pushTrigger();
    const apiKey = { label: 'ci runner' };
    const first = {
      job: await call('POST', '/v1/jobs', job, 'job-1'),
      connector: await call('POST', '/v1/connectors', connector, 'connector-1'),
      trigger: await call('POST', '/v1/triggers', trigger, 'trigger-1'),
      apiKey: await call('POST', '/v1/api-keys', apiKey, 'api-key-1'),
    };
    expect([first.job.status, first.connector.status, first.trigger.status, first.apiKey.status]).toEqual([
      202, 201, 201, 201,
    ]);
    const connect = {
      connection_type: 'file',
      dataset_name: 'stock',
      connection_id: first.connector.body.id,
      visibility: 'private',
    };
    const firstConnect = await call('POST', '/v1/data/connect', connect, 'connect-1');
    expect(firstConnect.body.status).toBe('ready');
    const triggerId = first.trigger.body.id as string;
    const fire = { current_value: 10 };
    const firstFire = await call('POST', `/v1/triggers/${triggerId}/fire`, fire, 'fire-1');
    expect(firstFire.status).toBe(200);

    await kill();
    expect(await leaveEveryKeyInFlight()).toBe(6);
    await start();

    const jobRetry = await call('POST', '/v1/jobs', job, 'job-1');
    expect(jobRetry.status).toBe(202);
    expect(isReplay(jobRetry)).toBe(true);
    expect(jobRetry.body.job_id).toBe(first.job.body.job_id);
    expect(jobRetry.body.poll_url).toBe(first.job.body.poll_url);
    const jobs = (await call('GET', '/v1/jobs')).body.jobs;
    expect(jobs.map((j: any) => j.job_id)).toEqual([first.job.body.job_id]);

    const connectorRetry = await call('POST', '/v1/connectors', connector, 'connector-1');
    expect(connectorRetry.status).toBe(201);
    expect(isReplay(connectorRetry)).toBe(true);
    expect(connectorRetry.body.id).toBe(first.connector.body.id);
    const connectors = (await call('GET', '/v1/connectors')).body.connectors;
    expect(connectors.map((c: any) => c.id)).toEqual([first.connector.body.id]);

    const connectRetry = await call('POST', '/v1/data/connect', connect, 'connect-1');
    expect(connectRetry.status).toBe(200);
    expect(isReplay(connectRetry)).toBe(true);
    expect(connectRetry.body).toEqual(firstConnect.body);
    const versions = (await call('GET', `/v1/data/${firstConnect.body.dataset_id}/versions`)).body.datasets;
    expect(versions).toHaveLength(1);

    const triggerRetry = await call('POST', '/v1/triggers', trigger, 'trigger-1');
    expect(triggerRetry.status).toBe(201);
    expect(isReplay(triggerRetry)).toBe(true);
    expect(triggerRetry.body.id).toBe(triggerId);
    const triggers = (await call('GET', '/v1/triggers')).body.triggers;
    expect(triggers.map((t: any) => t.id)).toEqual([triggerId]);

    const fireRetry = await call('POST', `/v1/triggers/${triggerId}/fire`, fire, 'fire-1');
    expect(fireRetry.status).toBe(200);
    expect(isReplay(fireRetry)).toBe(true);
    expect(fireRetry.body.fire_id).toBe(firstFire.body.fire_id);
    const fires = (await call('GET', `/v1/triggers/${triggerId}/fires`)).body.fires;
    expect(fires.map((f: any) => f.fire_id)).toEqual([firstFire.body.fire_id]);

    // The raw key was never kept: the retry names the key it made instead of answering it without its secret.
    const keyRetry = await call('POST', '/v1/api-keys', apiKey, 'api-key-1');
    expect(keyRetry.status).toBe(409);
    expect(keyRetry.body.error.code).toBe('conflict');
    expect(keyRetry.body.error.message).toContain(first.apiKey.body.id);
    const keys = (await call('GET', '/v1/api-keys')).body.keys;
    expect(keys.map((k: any) => k.id).sort()).toEqual([ownKeyId, first.apiKey.body.id].sort());

    // Answered once more, each replays its stored answer.
    const again = await call('POST', '/v1/jobs', job, 'job-1');
    expect(isReplay(again)).toBe(true);
    expect(again.body).toEqual(jobRetry.body);
  });
});
