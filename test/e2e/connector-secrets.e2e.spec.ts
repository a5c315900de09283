import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { startTestApp, TestApp } from '../support/test-app';

interface Receiver {
  readonly server: Server;
  readonly url: string;
  readonly seen: IncomingHttpHeaders[];
}

async function startReceiver(): Promise<Receiver> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function stop(receiver: Receiver): Promise<void> {
  receiver.server.closeAllConnections();
  return new Promise((resolve) => receiver.server.close(() => resolve()));
}

const OLD_TOKEN = 'old-token-4c1e9a';
const NEW_TOKEN = 'new-token-77b2d0';

describe('stored connector secrets and a changed destination (booted daemon)', () => {
  let t: TestApp;
  let key: string;
  let original: Receiver;
  let attacker: Receiver;

  beforeAll(async () => {
    original = await startReceiver();
    attacker = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: '127.0.0.1' });
    const signup = await t.request('POST', '/auth/signup', {
      body: {
        email: 'owner@secrets.test',
        password: 'correct horse battery staple',
        name: 'Owner',
        organization_name: 'Secrets',
      },
    });
    key = signup.body.api_key.raw_key as string;
  });

  afterAll(async () => {
    await t.close();
    await stop(original);
    await stop(attacker);
  });

  async function createRest(): Promise<string> {
    const created = await t.request('POST', '/v1/connectors', {
      token: key,
      body: {
        name: 'api',
        connector_type: 'rest',
        config: {
          base_url: original.url,
          auth_type: 'bearer',
          api_key: OLD_TOKEN,
          headers: { 'X-Trace': '1' },
        },
      },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  async function maskedConfig(id: string): Promise<Record<string, unknown>> {
    const read = await t.request('GET', `/v1/connectors/${id}`, { token: key });
    expect(read.body.config.api_key).toBe('********');
    return read.body.config as Record<string, unknown>;
  }

  const authorizations = (receiver: Receiver): unknown[] => receiver.seen.map((h) => h.authorization);

  it('refuses masked secrets sent to a new base_url (422 naming them); the old token never reaches it', async () => {
    const id = await createRest();
    const echoed = await maskedConfig(id);

    const moved = await t.request('PATCH', `/v1/connectors/${id}`, {
      token: key,
      body: { config: { ...echoed, base_url: attacker.url } },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.error.code).toBe('validation_failed');
    expect(moved.body.error.details).toEqual([
      {
        field: 'config.api_key',
        problem:
          'must be re-entered: the destination changed (config.base_url) and stored secrets are not sent to a new destination',
      },
    ]);
    expect(moved.text).not.toContain(OLD_TOKEN);

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token: key });
    expect(tested.body).toMatchObject({ success: true, status: 'ok' });
    expect(authorizations(original)).toEqual([`Bearer ${OLD_TOKEN}`]);
    expect(attacker.seen).toEqual([]);

    const reentered = await t.request('PATCH', `/v1/connectors/${id}`, {
      token: key,
      body: { config: { ...echoed, base_url: attacker.url, api_key: NEW_TOKEN } },
    });
    expect(reentered.status).toBe(200);
    expect((await t.request('POST', `/v1/connectors/${id}/test`, { token: key })).body.success).toBe(true);
    expect(authorizations(attacker)).toEqual([`Bearer ${NEW_TOKEN}`]);
    expect(JSON.stringify(attacker.seen)).not.toContain(OLD_TOKEN);
  });

  it('keeps masked secrets when the destination stays the same', async () => {
    original.seen.length = 0;
    const id = await createRest();
    const echoed = await maskedConfig(id);
    const renamed = await t.request('PATCH', `/v1/connectors/${id}`, {
      token: key,
      body: { config: { ...echoed, base_url: `${original.url}/v2`, health_path: '/ping' } },
    });
    expect(renamed.status).toBe(200);
    expect((await t.request('POST', `/v1/connectors/${id}/test`, { token: key })).body.success).toBe(true);
    expect(authorizations(original)).toEqual([`Bearer ${OLD_TOKEN}`]);
  });

  it('names a masked auth header and a DSN password too, and a database moved to another host', async () => {
    const api = await t.request('POST', '/v1/connectors', {
      token: key,
      body: {
        name: 'api2',
        connector_type: 'rest',
        config: { base_url: original.url, headers: { Authorization: `Bearer ${OLD_TOKEN}` } },
      },
    });
    const echoed = (await t.request('GET', `/v1/connectors/${api.body.id as string}`, { token: key })).body
      .config as Record<string, unknown>;
    const moved = await t.request('PATCH', `/v1/connectors/${api.body.id as string}`, {
      token: key,
      body: { config: { ...echoed, url: `${attacker.url}/items` } },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'config.headers.Authorization',
    ]);

    const pg = await t.request('POST', '/v1/connectors', {
      token: key,
      body: {
        name: 'pg',
        connector_type: 'postgres',
        config: { host: '127.0.0.1', database: 'test', user: 'postgres', password: 'pg-secret' },
      },
    });
    const pgConfig = pg.body.config as Record<string, unknown>;
    const pgMoved = await t.request('PATCH', `/v1/connectors/${pg.body.id as string}`, {
      token: key,
      body: { config: { ...pgConfig, host: '127.0.0.2' } },
    });
    expect(pgMoved.status).toBe(422);
    expect(pgMoved.body.error.message).toContain('config.host');
    expect(pgMoved.body.error.details.map((d: { field: string }) => d.field)).toEqual(['config.password']);
    const tlsOff = await t.request('PATCH', `/v1/connectors/${pg.body.id as string}`, {
      token: key,
      body: { config: { ...pgConfig, ssl_mode: 'disable' } },
    });
    expect(tlsOff.status).toBe(422);
    const otherDatabase = await t.request('PATCH', `/v1/connectors/${pg.body.id as string}`, {
      token: key,
      body: { config: { ...pgConfig, database: 'other' } },
    });
    expect(otherDatabase.status).toBe(200);
  });
});
