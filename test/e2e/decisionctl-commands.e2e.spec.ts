import { rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { createClient } from 'redis';
import { signupAccount } from '../factories/accounts';
import { decisionctl, expectJsonOfContract, freshHome } from '../support/decisionctl';
import { startTestApp, TestApp } from '../support/test-app';

const SCENARIO = {
  runs: 2000,
  seed: 7,
  scenario: {
    variables: { revenue: { low: 120, high: 200 }, cost: { low: -150, high: -90 } },
    objective: 'maximize_net_value',
  },
};

describe('decisionctl client commands against the real daemon', () => {
  let t: TestApp;
  let root: string;
  let env: Record<string, string>;
  const cli = (...args: string[]) => decisionctl(args, env);
  /** Runs a command with --format json, expects success and a body the contract allows. */
  const json = async (operation: string, status: number, ...args: string[]): Promise<any> => {
    const result = await cli(...args, '--format', 'json');
    if (result.status !== 0)
      throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
    return expectJsonOfContract(result.stdout, operation, status);
  };
  const table = async (...args: string[]): Promise<string> => {
    const result = await cli(...args);
    if (result.status !== 0)
      throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
    expect(() => JSON.parse(result.stdout)).toThrow();
    return result.stdout;
  };

  beforeAll(async () => {
    t = await startTestApp();
    const home = freshHome();
    root = home.root;
    env = { ...home.env, SERVICE_BASE_URL: t.baseUrl, SERVICE_API_KEY: (await signupAccount(t)).apiKey };
    writeFileSync(join(root, 'scenario.json'), JSON.stringify(SCENARIO));
    writeFileSync(
      join(root, 'sales.json'),
      JSON.stringify({ content: 'region,units\nnorth,10\nsouth,20\n' }),
    );
  });

  afterAll(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('keys create, list and revoke', async () => {
    const created = await json('POST /v1/api-keys', 201, 'keys', 'create', 'ci', '--device-limit', '1');
    expect(created.raw_key).toMatch(/_live_/);
    expect(await table('keys', 'create', 'second', '--expires-at', '2030-01-01T00:00:00Z')).toMatch(
      /^raw_key\s+\S+_live_/m,
    );
    const listed = await json('GET /v1/api-keys', 200, 'keys', 'list');
    expect(listed.keys.map((k: { label: string }) => k.label)).toEqual(
      expect.arrayContaining(['ci', 'second']),
    );
    expect(await table('keys', 'list')).toMatch(/^ID\s+LABEL\s+KEY_PREFIX/);
    const revoked = await json('DELETE /v1/api-keys/{key_id}', 200, 'keys', 'revoke', created.id);
    expect(revoked).toMatchObject({ id: created.id, revoked: true });
    const other = listed.keys.find((k: { label: string }) => k.label === 'second');
    expect(await table('keys', 'revoke', other.id)).toMatch(/^revoked\s+true/m);
    expect((await cli('keys', 'create', 'x', '--device-limit', 'many')).status).toBe(2);
  });

  it('devices list and revoke', async () => {
    const capped = await json('POST /v1/api-keys', 201, 'keys', 'create', 'laptop', '--device-limit', '1');
    const login = await decisionctl(['login'], {
      ...env,
      SERVICE_API_KEY: capped.raw_key,
      SERVICE_DEVICE_ID: 'cli-commands-device-01',
    });
    expect(login.status).toBe(0);
    const listed = await json('GET /v1/device/list', 200, 'devices', 'list');
    const device = listed.devices.find(
      (d: { device_id: string }) => d.device_id === 'cli-commands-device-01',
    );
    expect(await table('devices', 'list')).toContain('cli-commands-device-01');
    const revoked = await json(
      'DELETE /v1/device/{registrationId}',
      200,
      'devices',
      'revoke',
      device.registration_id,
    );
    expect(revoked).toMatchObject({ registration_id: device.registration_id, revoked: true });
    const again = await cli('devices', 'revoke', device.registration_id);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('device_not_found');
  });

  it('connectors, data and query, in both formats', async () => {
    const connector = await json(
      'POST /v1/connectors',
      201,
      'connectors',
      'create',
      'sales',
      '--type',
      'csv',
      '--config-file',
      join(root, 'sales.json'),
    );
    expect(connector.status).toBe('untested');
    expect(
      await table('connectors', 'create', 'inline', '--type', 'csv', '--set', 'content=a,b\n1,2\n'),
    ).toMatch(/^status\s+untested/m);
    const notLive = await cli('connectors', 'browse', connector.id);
    expect(notLive.status).toBe(1);
    expect(notLive.stderr).toContain('not_connected');

    expect(
      (await json('POST /v1/connectors/{id}/test', 200, 'connectors', 'test', connector.id)).success,
    ).toBe(true);
    expect(await table('connectors', 'test', connector.id)).toMatch(/^success\s+true/m);
    const listed = await json('GET /v1/connectors', 200, 'connectors', 'list');
    expect(listed.connectors.map((c: { id: string }) => c.id)).toContain(connector.id);
    const every = await json('GET /v1/connectors', 200, 'connectors', 'list', '--limit', '1', '--all');
    expect(every.connectors).toEqual(listed.connectors);
    expect(await table('connectors', 'list')).toMatch(/^ID\s+NAME\s+CONNECTOR_TYPE\s+STATUS/);
    await json('GET /v1/connectors/{id}/browse', 200, 'connectors', 'browse', connector.id);
    expect(await table('connectors', 'browse', connector.id)).not.toBe('');

    const dataset = await json(
      'POST /v1/data/connect',
      200,
      'data',
      'connect',
      'sales',
      '--connector',
      connector.id,
    );
    expect(dataset.dataset_id).toBeDefined();
    const datasets = await json('GET /v1/data', 200, 'data', 'list');
    expect(datasets.datasets.map((d: { id: string }) => d.id)).toContain(dataset.dataset_id);
    // Every column is a field of the contract's dataset: no cell prints "-".
    expect(await table('data', 'list')).toMatch(
      new RegExp(
        `^ID\\s+DATASET_NAME\\s+VERSION\\s+ROWS\\s+COLUMNS\\n${dataset.dataset_id}\\s+sales\\s+1\\s+\\d+\\s+\\d+$`,
        'm',
      ),
    );

    const rows = await json(
      'POST /v1/query',
      200,
      'data',
      'query',
      dataset.dataset_id,
      '--select',
      'region,units',
      '--limit',
      '1',
    );
    expect(rows.rows).toHaveLength(1);
    expect(
      await table('data', 'query', dataset.dataset_id, '--select', 'region,units', '--limit', '5'),
    ).toMatch(/^REGION\s+UNITS\n.*north\s+10/m);
    await json('POST /v1/query', 200, 'data', 'query', dataset.dataset_id, 'top 1 region by total units');
    expect((await cli('data', 'query', dataset.dataset_id)).status).toBe(2);

    const few = await cli('data', 'fit', dataset.dataset_id, '--column', 'units');
    expect([few.status, few.stderr.includes('insufficient_data')]).toEqual([2, true]);
    expect(
      (await cli('data', 'fit', dataset.dataset_id, '--column', 'units', '--where', 'west')).status,
    ).toBe(2);
    const values = Array.from({ length: 12 }, (_, i) => 3 * i + 1);
    const fitSource = await json(
      'POST /v1/connectors',
      201,
      'connectors',
      'create',
      'fit-source',
      '--type',
      'csv',
      '--set',
      `content=x\n${values.join('\n')}\n`,
    );
    await json('POST /v1/connectors/{id}/test', 200, 'connectors', 'test', fitSource.id);
    const fitData = await json(
      'POST /v1/data/connect',
      200,
      'data',
      'connect',
      'fit-data',
      '--connector',
      fitSource.id,
    );
    const fit = await json(
      'POST /v1/data/{id}/fit',
      200,
      'data',
      'fit',
      fitData.dataset_id,
      '--column',
      'x',
      '--families',
      'uniform,normal',
    );
    expect(fit.n).toBe(12);
    expect(fit.candidates.find((c: { family: string }) => c.family === 'uniform').params).toEqual({
      min: 1,
      max: 34,
    });
    expect(await table('data', 'fit', fitData.dataset_id, '--column', 'x')).toMatch(
      /^FAMILY\s+AIC\s+KS_STATISTIC\s+PARAMS/,
    );
  });

  it('simulate and jobs submit, get and wait', async () => {
    const file = join(root, 'scenario.json');
    const result = await json('POST /v1/simulate', 200, 'simulate', file);
    expect(result.recommended_action).toBeDefined();
    const simulated = await table('simulate', file);
    expect(simulated).toMatch(/^recommended_action\s+\S+/m);
    // Nested fields are key/value rows by their path, not JSON.
    expect(simulated).toMatch(/^actions\[0\]\.name\s+\S+/m);
    expect(simulated).not.toMatch(/[[{]"/);
    const whoami = await table('whoami');
    expect(whoami).toMatch(/^organization\.id\s+org_\S+$/m);
    expect(whoami).not.toMatch(/[[{]"/);

    const job = await json('POST /v1/jobs', 202, 'jobs', 'submit', file);
    const finished = await json('GET /v1/jobs/{id}', 200, 'jobs', 'wait', job.job_id);
    expect(finished.status).toBe('succeeded');
    expect((await json('GET /v1/jobs/{id}', 200, 'jobs', 'get', job.job_id)).job_id).toBe(job.job_id);
    expect(await table('jobs', 'get', job.job_id)).toMatch(/^status\s+succeeded/m);
    const waited = await cli('jobs', 'submit', file, '--wait');
    expect(waited.status).toBe(0);
    expect(waited.stderr).toMatch(/submitted \S+/);
    expect(waited.stdout).toMatch(/^status\s+succeeded/m);

    writeFileSync(join(root, 'broken.json'), '{"runs": ');
    const broken = await cli('simulate', join(root, 'broken.json'));
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain('is not valid JSON');
  });

  it('triggers create, list, get and delete', async () => {
    writeFileSync(
      join(root, 'trigger.json'),
      JSON.stringify({
        name: 'cli trigger',
        condition: { source: { kind: 'push' }, operator: 'lt', threshold: 100 },
        simulation: SCENARIO,
        webhook_url: 'http://127.0.0.1:9/hook',
      }),
    );
    const created = await json('POST /v1/triggers', 201, 'triggers', 'create', join(root, 'trigger.json'));
    expect(created.id).toMatch(/^trg_/);
    const listed = await json('GET /v1/triggers', 200, 'triggers', 'list');
    expect(listed.triggers.map((x: { id: string }) => x.id)).toContain(created.id);
    expect(await table('triggers', 'list')).toMatch(/^ID\s+NAME\s+STATE/);
    expect((await json('GET /v1/triggers/{id}', 200, 'triggers', 'get', created.id)).name).toBe(
      'cli trigger',
    );
    expect(await table('triggers', 'get', created.id)).toMatch(/^name\s+cli trigger/m);

    const fired = await t.request('POST', `/v1/triggers/${created.id}/fire`, {
      body: { current_value: 5 },
      token: env.SERVICE_API_KEY,
    });
    writeFileSync(join(root, 'realized.json'), JSON.stringify({ revenue: 150, cost: -100 }));
    const outcome = await json(
      'POST /v1/triggers/{id}/fires/{fireId}/outcome',
      201,
      'triggers',
      'outcome',
      created.id,
      fired.body.fire_id,
      '50',
      '--variables',
      join(root, 'realized.json'),
    );
    expect(outcome).toMatchObject({
      realized_value: 50,
      action_values: { proceed: 50, do_nothing: 0 },
      best_action: 'proceed',
    });
    expect((await cli('triggers', 'outcome', created.id, fired.body.fire_id, 'x')).status).toBe(2);
    expect((await cli('triggers', 'outcome', created.id, fired.body.fire_id, '50')).status).toBe(1);
    const calibration = await json(
      'GET /v1/triggers/{id}/calibration',
      200,
      'triggers',
      'calibration',
      created.id,
    );
    expect(calibration).toMatchObject({ status: 'calibrating', outcomes: 1 });
    await json('DELETE /v1/triggers/{id}', 200, 'triggers', 'delete', created.id);
    expect((await cli('triggers', 'get', created.id)).status).toBe(1);
  });

  it('execution-policy get and set', async () => {
    const current = await json('GET /v1/execution-policy', 200, 'execution-policy', 'get');
    expect(current.mode).toBe('calibrated_only');
    const changed = await json(
      'PUT /v1/execution-policy',
      200,
      'execution-policy',
      'set',
      'never',
      '--min-outcomes',
      '40',
    );
    expect(changed).toMatchObject({ mode: 'never', min_outcomes: 40 });
    expect(changed.policy_snapshot_id).not.toBe(current.policy_snapshot_id);
    expect(await table('execution-policy', 'get')).toMatch(/^mode\s+never/m);
    expect((await cli('execution-policy', 'set', 'sometimes')).status).toBe(2);
  });

  it('lists page by cursor: --limit and --cursor give one page, --all every item in one document', async () => {
    const ids: string[] = [];
    for (const name of ['paged one', 'paged two', 'paged three']) {
      writeFileSync(
        join(root, 'paged.json'),
        JSON.stringify({
          name,
          condition: { source: { kind: 'push' }, operator: 'gt', threshold: 1 },
          simulation: SCENARIO,
        }),
      );
      ids.push((await json('POST /v1/triggers', 201, 'triggers', 'create', join(root, 'paged.json'))).id);
    }
    const total = (await t.request('GET', '/v1/triggers?limit=100', { token: env.SERVICE_API_KEY })).body
      .triggers.length;
    expect(total).toBeGreaterThanOrEqual(3);

    const first = await cli('triggers', 'list', '--limit', '2', '--format', 'json');
    expect(first.status).toBe(0);
    const page: any = expectJsonOfContract(first.stdout, 'GET /v1/triggers', 200);
    expect(page.triggers).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(first.stderr).toBe(
      `decisionctl: more triggers follow: add --cursor ${page.next_cursor}, or --all for every page\n`,
    );

    const second = await json(
      'GET /v1/triggers',
      200,
      'triggers',
      'list',
      '--limit',
      '2',
      '--cursor',
      page.next_cursor,
    );
    const seen = [...page.triggers, ...second.triggers].map((x: { id: string }) => x.id);
    expect(new Set(seen).size).toBe(seen.length);

    const all = await cli('triggers', 'list', '--limit', '2', '--all', '--format', 'json');
    expect(all.stderr).toBe('');
    const everything: any = expectJsonOfContract(all.stdout, 'GET /v1/triggers', 200);
    expect(everything.next_cursor).toBeNull();
    expect(everything.triggers).toHaveLength(total);
    expect(everything.triggers.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(ids));
    expect(everything.triggers.slice(0, 2)).toEqual(page.triggers);

    const rows = (await table('triggers', 'list', '--limit', '1', '--all')).trim().split('\n');
    expect(rows).toHaveLength(total + 1);
    expect((await cli('triggers', 'list', '--limit', '0')).status).toBe(2);
    for (const id of ids) await json('DELETE /v1/triggers/{id}', 200, 'triggers', 'delete', id);
  });

  describe('a service that answers 503, and one that never answers', () => {
    let server: Server;
    let url: string;
    const held: { end: () => void }[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url?.startsWith('/busy/')) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '120' });
          res.end(JSON.stringify({ error: { code: 'engine_unavailable', message: 'The engine is busy.' } }));
          return;
        }
        held.push(res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });

    afterAll(async () => {
      for (const res of held) res.end();
      await new Promise((resolve) => server.close(resolve));
    });

    it('503 with a long Retry-After: exit 75 and the wait is named', async () => {
      const result = await decisionctl(['whoami'], { ...env, SERVICE_BASE_URL: `${url}/busy` });
      expect(result.status).toBe(75);
      expect(result.stderr).toContain('retry after 120 s');
    });

    it('Ctrl-C while waiting: exit 130, nothing on stdout', async () => {
      let pid = 0;
      const running = decisionctl(
        ['jobs', 'wait', 'job_123'],
        { ...env, SERVICE_BASE_URL: url },
        {
          onSpawn: (p) => (pid = p),
        },
      );
      for (let i = 0; i < 100 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(held.length).toBeGreaterThan(0);
      process.kill(pid, 'SIGINT');
      const result = await running;
      expect(result.status).toBe(130);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('interrupted');
    });
  });
});

describe('decisionctl data connect with a selection (--set), against a real Redis', () => {
  const DB = 13;
  const PREFIX = `cli_${process.pid}_${Date.now()}`;
  const redis = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: DB });
  let t: TestApp;
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    await redis.connect();
    for (let i = 1; i <= 3; i += 1)
      await redis.hSet(`${PREFIX}:sale:${i}`, {
        region: ['north', 'south', 'east'][i - 1],
        units: String(i),
      });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: '127.0.0.1:6379' });
    const home = freshHome();
    root = home.root;
    env = { ...home.env, SERVICE_BASE_URL: t.baseUrl, SERVICE_API_KEY: (await signupAccount(t)).apiKey };
  });

  afterAll(async () => {
    await t.close();
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('passes the type and its selection fields to /v1/data/connect; named options win over --set', async () => {
    const run = async (...args: string[]) => {
      const result = await decisionctl([...args, '--format', 'json'], env);
      if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
      return result.stdout;
    };
    const connector: any = expectJsonOfContract(
      await run(
        'connectors',
        'create',
        'cache',
        '--type',
        'redis',
        '--set',
        'host=127.0.0.1',
        '--set',
        `db=${DB}`,
      ),
      'POST /v1/connectors',
      201,
    );
    await run('connectors', 'test', connector.id);
    const dataset: any = expectJsonOfContract(
      await run(
        'data',
        'connect',
        'sales',
        '--connector',
        connector.id,
        '--type',
        'redis',
        '--set',
        `pattern=${PREFIX}:sale:*`,
        '--set',
        'dataset_name=ignored',
      ),
      'POST /v1/data/connect',
      200,
    );
    expect(dataset).toMatchObject({
      status: 'ready',
      dataset_name: 'sales',
      schema_summary: { rows: 3, columns: 3 },
    });

    const missing = await decisionctl(
      ['data', 'connect', 'nothing', '--connector', connector.id, '--type', 'redis'],
      env,
    );
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('pattern');
  });
});
