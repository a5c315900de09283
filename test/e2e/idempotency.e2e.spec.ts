import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { Clock } from '../../src/common/clock';
import { IdempotencyPruner } from '../../src/modules/idempotency/idempotency-pruner';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyService,
} from '../../src/modules/idempotency/idempotency.service';
import { signupAccount, TestAccount } from '../factories/accounts';
import { SMALL_SIMULATION } from '../factories/simulations';
import { filesContaining } from '../support/grep-dir';
import { HttpResult, startTestApp, TestApp } from '../support/test-app';
import { queryAppStore } from '../support/test-store';
import { waitUntil } from '../support/wait';

const JOB = { request: SMALL_SIMULATION };

describe('Idempotency-Key on the POSTs that create things', () => {
  let t: TestApp;
  let source: Server;
  let sourceUrl: string;
  /** Answers of the REST source that wait until the test lets them go. */
  const heldAnswers: Array<() => void> = [];

  beforeAll(async () => {
    source = createServer((_req: IncomingMessage, res: ServerResponse) => {
      heldAnswers.push(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ items: [{ id: 1 }, { id: 2 }] }));
      });
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => source.close(resolve));
  });
  afterEach(() => jest.restoreAllMocks());

  const post = (account: TestAccount, path: string, body: unknown, key?: string): Promise<HttpResult<any>> =>
    t.request('POST', path, {
      token: account.apiKey,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const jobIds = async (account: TestAccount): Promise<string[]> =>
    (await t.request('GET', '/v1/jobs?limit=500', { token: account.apiKey })).body.jobs.map(
      (j: any) => j.job_id,
    );
  const isReplay = (res: HttpResult<any>): boolean => res.headers.get('idempotent-replayed') === 'true';

  /** Sends a request on a raw socket that the test may drop before reading the answer. */
  function sendRaw(account: TestAccount, path: string, body: unknown, key: string): Socket {
    const payload = JSON.stringify(body);
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      [
        `POST ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        `Authorization: Bearer ${account.apiKey}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(payload)}`,
        `Idempotency-Key: ${key}`,
        '',
        payload,
      ].join('\r\n'),
    );
    return socket;
  }

  describe('POST /v1/jobs retried after its answer was lost', () => {
    it('creates exactly one job when the answer is lost after the job was committed', async () => {
      const account = await signupAccount(t);
      const socket = sendRaw(account, '/v1/jobs', JOB, 'lost-after-commit');
      const [committed] = await waitUntil(async () => {
        const ids = await jobIds(account);
        return ids.length > 0 ? ids : undefined;
      });
      socket.destroy();

      const retry = await waitUntil(async () => {
        const res = await post(account, '/v1/jobs', JOB, 'lost-after-commit');
        return res.status === 409 ? undefined : res;
      });
      expect(retry.status).toBe(202);
      expect(isReplay(retry)).toBe(true);
      expect(retry.body.job_id).toBe(committed);
      expect(await jobIds(account)).toEqual([committed]);
    });

    it('creates exactly one job when the client drops the connection right after sending', async () => {
      const account = await signupAccount(t);
      const socket = sendRaw(account, '/v1/jobs', JOB, 'dropped-at-once');
      await new Promise<void>((resolve) => socket.end(resolve));
      socket.destroy();

      const retry = await waitUntil(async () => {
        const res = await post(account, '/v1/jobs', JOB, 'dropped-at-once');
        return res.status === 409 ? undefined : res;
      });
      expect(retry.status).toBe(202);
      const again = await post(account, '/v1/jobs', JOB, 'dropped-at-once');
      expect(again.status).toBe(202);
      expect(isReplay(again)).toBe(true);
      expect(again.body.job_id).toBe(retry.body.job_id);
      expect(await jobIds(account)).toEqual([retry.body.job_id]);
    });

    it('runs one of two identical requests sent at once; the other is refused (409) or replayed', async () => {
      const account = await signupAccount(t);
      const answers = await Promise.all([
        post(account, '/v1/jobs', JOB, 'twins'),
        post(account, '/v1/jobs', JOB, 'twins'),
      ]);
      const ids = await jobIds(account);
      expect(ids).toHaveLength(1);
      const ran = answers.filter((res) => res.status === 202 && !isReplay(res));
      expect(ran).toHaveLength(1);
      expect(ran[0].body.job_id).toBe(ids[0]);
      const other = answers.find((res) => res !== ran[0]) as HttpResult<any>;
      if (other.status === 409) {
        expect(other.body.error.code).toBe('idempotency_key_in_use');
        expect(other.headers.get('retry-after')).toBe('1');
      } else {
        expect(other.status).toBe(202);
        expect(isReplay(other)).toBe(true);
        expect(other.body).toEqual(ran[0].body);
      }
    });
  });

  it('replays an API-key creation with the same raw_key, kept only sealed', async () => {
    const account = await signupAccount(t);
    const first = await post(account, '/v1/api-keys', { label: 'ci runner' }, 'make-ci-key');
    expect(first.status).toBe(201);
    expect(isReplay(first)).toBe(false);
    expect(first.body.raw_key).toMatch(/_live_|_test_/);

    const second = await post(account, '/v1/api-keys', { label: 'ci runner' }, '"make-ci-key"');
    expect(second.status).toBe(201);
    expect(isReplay(second)).toBe(true);
    expect(second.body).toEqual(first.body);
    const keys = (await t.request('GET', '/v1/api-keys', { token: account.apiKey })).body.keys;
    expect(keys.map((k: any) => k.id).sort()).toEqual([account.apiKeyId, first.body.id].sort());

    expect(filesContaining(t.dataDir, first.body.raw_key)).toEqual([]);
    expect(filesContaining(t.dataDir, 'make-ci-key')).toEqual([]);
    const rows = await queryAppStore<Record<string, unknown>>(
      t,
      'select * from idempotency_keys where org_id = ?',
      [account.orgId],
    );
    expect(rows).toEqual([
      expect.objectContaining({
        response_sealed: expect.stringMatching(/^sv1:[0-9a-f]{8}:/),
        status_code: 201,
        state: 'completed',
      }),
    ]);
    expect(JSON.stringify(rows)).not.toContain(first.body.raw_key);
    expect(JSON.stringify(rows)).not.toContain('make-ci-key');
  });

  it('replays a connector creation and refuses the key for another body or route (422)', async () => {
    const account = await signupAccount(t);
    const body = {
      name: 'orders',
      connector_type: 'file',
      config: { file_type: 'csv', content: 'a,b\n1,2' },
    };
    const first = await post(account, '/v1/connectors', body, 'conn-1');
    expect(first.status).toBe(201);
    const replay = await post(account, '/v1/connectors', { ...body }, 'conn-1');
    expect(replay.status).toBe(201);
    expect(isReplay(replay)).toBe(true);
    expect(replay.body.id).toBe(first.body.id);

    const reused = await post(account, '/v1/connectors', { ...body, name: 'other' }, 'conn-1');
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    const otherRoute = await post(account, '/v1/jobs', JOB, 'conn-1');
    expect(otherRoute.status).toBe(422);
    expect(otherRoute.body.error.code).toBe('idempotency_key_reused');
    const listed = (await t.request('GET', '/v1/connectors', { token: account.apiKey })).body.connectors;
    expect(listed.map((c: any) => c.id)).toEqual([first.body.id]);
    expect(await jobIds(account)).toEqual([]);
  });

  it('answers 409 while a data connect with the key runs, then replays its answer', async () => {
    const account = await signupAccount(t);
    const connector = await post(account, '/v1/connectors', {
      name: 'slow source',
      connector_type: 'rest',
      config: { url: `${sourceUrl}/items`, data_path: 'items' },
    });
    expect(connector.status).toBe(201);
    const connect = {
      connection_type: 'api',
      provider: 'rest',
      dataset_name: 'slow',
      connection_id: connector.body.id,
    };

    const running = post(account, '/v1/data/connect', connect, 'connect-1');
    await waitUntil(() => heldAnswers.length > 0);
    const busy = await post(account, '/v1/data/connect', connect, 'connect-1');
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('idempotency_key_in_use');
    expect(busy.headers.get('retry-after')).toBe('1');
    const different = await post(
      account,
      '/v1/data/connect',
      { ...connect, dataset_name: 'other' },
      'connect-1',
    );
    expect(different.status).toBe(422);
    expect(different.body.error.code).toBe('idempotency_key_reused');

    heldAnswers.splice(0).forEach((answer) => answer());
    const first = await running;
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('ready');
    const replay = await post(account, '/v1/data/connect', connect, 'connect-1');
    expect(replay.status).toBe(200);
    expect(isReplay(replay)).toBe(true);
    expect(replay.body).toEqual(first.body);
    expect(heldAnswers).toHaveLength(0);
    const datasets = (await t.request('GET', '/v1/data', { token: account.apiKey })).body.datasets;
    expect(datasets.map((d: any) => d.id)).toEqual([first.body.dataset_id]);
  });

  it('answers a retry that lost the race to a stalled first run with what that run created', async () => {
    const account = await signupAccount(t);
    const connector = await post(account, '/v1/connectors', {
      name: 'stalled source',
      connector_type: 'rest',
      config: { url: `${sourceUrl}/items`, data_path: 'items' },
    });
    const connect = {
      connection_type: 'api',
      provider: 'rest',
      dataset_name: 'stalled',
      connection_id: connector.body.id,
    };
    const start = Date.now();
    let now = start;
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));

    // The first run stalls past its lease (as a frozen daemon would); its retry resumes the claim and runs too.
    const stalled = post(account, '/v1/data/connect', connect, 'stalled-1');
    await waitUntil(() => heldAnswers.length === 1);
    now = start + IDEMPOTENCY_LEASE_MS + 1000;
    const retry = post(account, '/v1/data/connect', connect, 'stalled-1');
    await waitUntil(() => heldAnswers.length === 2);

    heldAnswers.shift()!();
    const first = await stalled;
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('ready');
    heldAnswers.shift()!();
    const second = await retry;
    expect(second.status).toBe(200);
    expect(isReplay(second)).toBe(true);
    expect(second.body).toEqual(first.body);

    const again = await post(account, '/v1/data/connect', connect, 'stalled-1');
    expect(isReplay(again)).toBe(true);
    expect(again.body).toEqual(first.body);
    const datasets = (await t.request('GET', '/v1/data', { token: account.apiKey })).body.datasets;
    expect(datasets.map((d: any) => d.id)).toEqual([first.body.dataset_id]);
  });

  it("scopes keys per organization: another organization's same key is a new request", async () => {
    const a = await signupAccount(t);
    const b = await signupAccount(t);
    const fromA = await post(a, '/v1/jobs', JOB, 'shared-key');
    const fromB = await post(b, '/v1/jobs', JOB, 'shared-key');
    expect(fromA.status).toBe(202);
    expect(fromB.status).toBe(202);
    expect(isReplay(fromB)).toBe(false);
    expect(fromB.body.job_id).not.toBe(fromA.body.job_id);
    expect(await jobIds(a)).toEqual([fromA.body.job_id]);
    expect(await jobIds(b)).toEqual([fromB.body.job_id]);
  });

  it('keeps a key 24 h: after that it is a new request, and the pruner deletes it', async () => {
    const account = await signupAccount(t);
    const clock = t.app.get(Clock);
    const pruner = t.app.get(IdempotencyPruner);
    const keptRows = async (): Promise<number> =>
      (await queryAppStore(t, 'select id from idempotency_keys where org_id = ?', [account.orgId])).length;
    const start = Date.now();
    let now = start;
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));

    const first = await post(account, '/v1/jobs', JOB, 'daily');
    now = start + IDEMPOTENCY_RETENTION_MS - 1000;
    await pruner.prune();
    expect(await keptRows()).toBe(1);
    const stillKept = await post(account, '/v1/jobs', JOB, 'daily');
    expect(isReplay(stillKept)).toBe(true);
    expect(stillKept.body.job_id).toBe(first.body.job_id);

    now = start + IDEMPOTENCY_RETENTION_MS;
    const otherBody = { request: { ...SMALL_SIMULATION, seed: 7 } };
    const afterExpiry = await post(account, '/v1/jobs', otherBody, 'daily');
    expect(afterExpiry.status).toBe(202);
    expect(isReplay(afterExpiry)).toBe(false);
    expect((await jobIds(account)).sort()).toEqual([first.body.job_id, afterExpiry.body.job_id].sort());

    now = start + 2 * IDEMPOTENCY_RETENTION_MS - 1000;
    await pruner.prune();
    expect(await keptRows()).toBe(1);
    now = start + 2 * IDEMPOTENCY_RETENTION_MS;
    expect(await pruner.prune()).toBeGreaterThanOrEqual(1);
    expect(await keptRows()).toBe(0);
  });

  it('lets a retry run again once an in-flight claim was left behind by a crash and its lease lapsed', async () => {
    const account = await signupAccount(t);
    const clock = t.app.get(Clock);
    const start = Date.now();
    let now = start;
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));
    // What a daemon that died mid-request leaves: a claim nobody completes or renews.
    const orphan = await t.app.get(IdempotencyService).begin({
      orgId: account.orgId,
      key: 'orphaned',
      method: 'POST',
      route: '/v1/jobs',
      caller: `key:${account.apiKeyId}`,
      body: JOB,
    });
    expect(orphan.kind).toBe('claimed');

    now = start + IDEMPOTENCY_LEASE_MS - 1000;
    const busy = await post(account, '/v1/jobs', JOB, 'orphaned');
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('idempotency_key_in_use');
    expect(await jobIds(account)).toEqual([]);

    now = start + IDEMPOTENCY_LEASE_MS;
    const retried = await post(account, '/v1/jobs', JOB, 'orphaned');
    expect(retried.status).toBe(202);
    expect(isReplay(retried)).toBe(false);
    expect(await jobIds(account)).toEqual([retried.body.job_id]);
  });

  it('keeps a renewed claim in use past its first lease (a long request is not run twice)', async () => {
    const account = await signupAccount(t);
    const start = Date.now();
    let now = start;
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    const service = t.app.get(IdempotencyService);
    const running = await service.begin({
      orgId: account.orgId,
      key: 'long-running',
      method: 'POST',
      route: '/v1/jobs',
      caller: `key:${account.apiKeyId}`,
      body: JOB,
    });
    if (running.kind !== 'claimed') throw new Error('expected a claim');

    now = start + IDEMPOTENCY_LEASE_MS - 1000;
    expect(await service.renew(running.claim)).toBe(true);
    now = start + IDEMPOTENCY_LEASE_MS + 1000;
    const busy = await post(account, '/v1/jobs', JOB, 'long-running');
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('idempotency_key_in_use');
    expect(await jobIds(account)).toEqual([]);

    const first = { job_id: 'job_first', poll_url: '/v1/jobs/job_first', status: 'queued' };
    await service.complete(running.claim, 202, first);
    const replay = await post(account, '/v1/jobs', JOB, 'long-running');
    expect(replay.status).toBe(202);
    expect(isReplay(replay)).toBe(true);
    expect(replay.body).toEqual(first);
    expect(await jobIds(account)).toEqual([]);
  });

  it('releases the key when the request fails, so a corrected retry with it runs', async () => {
    const account = await signupAccount(t);
    const invalid = await post(account, '/v1/jobs', { request: 'not an object' }, 'fix-me');
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('validation_failed');
    const fixed = await post(account, '/v1/jobs', JOB, 'fix-me');
    expect(fixed.status).toBe(202);
    expect(isReplay(fixed)).toBe(false);
    expect(await jobIds(account)).toEqual([fixed.body.job_id]);
  });

  it('refuses a malformed or over-long key with 400 invalid_idempotency_key and creates nothing', async () => {
    const account = await signupAccount(t);
    for (const key of ['', 'k'.repeat(256), 'caf\u00e9', '"unterminated']) {
      const res = await post(account, '/v1/jobs', JOB, key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_idempotency_key');
      expect(res.body.error.message).toMatch(/Idempotency-Key .*1 to 255 printable ASCII characters/);
    }
    const longest = await post(account, '/v1/jobs', JOB, 'k'.repeat(255));
    expect(longest.status).toBe(202);
    expect(await jobIds(account)).toEqual([longest.body.job_id]);
  });

  it('leaves routes without @Idempotent() alone (POST /v1/webhooks/test)', async () => {
    const account = await signupAccount(t);
    const res = await post(
      account,
      '/v1/webhooks/test',
      { callback_url: 'http://192.0.2.1/' },
      'k'.repeat(300),
    );
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
  });
});
