import { readFileSync } from 'node:fs';
import { signupAccount, TestAccount } from '../factories/accounts';
import { SMALL_SIMULATION } from '../factories/simulations';
import { pushTrigger } from '../factories/triggers';
import { CONTRACT_FILE } from '../../src/modules/contract/contract-file';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const json = { 'content-type': 'application/json' };

/** Every list of the contract paged by `?cursor=`, its path parameters filled by `fill`. */
function pagedLists(fill: (name: string) => string): string[] {
  const paths = (JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as { paths: Record<string, any> }).paths;
  return Object.entries(paths)
    .filter(([, ops]) => (ops.get?.parameters ?? []).some((p: { name: string }) => p.name === 'cursor'))
    .map(([path]) => path.replace(/\{(\w+)\}/g, (_m, name: string) => fill(name)));
}

describe('HTTP answers a new user meets on mistakes', () => {
  let t: TestApp;
  let owner: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    owner = await signupAccount(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a garbage cursor with 422 invalid_cursor on every paged list', async () => {
    const trigger = await t.request('POST', '/v1/triggers', { token: owner.apiKey, body: pushTrigger() });
    expect(trigger.status).toBe(201);
    const lists = pagedLists(() => trigger.body.id as string);
    expect(lists).toHaveLength(7);
    for (const list of lists) {
      for (const cursor of ['garbage', 'job_zzzzzzzzzz', 'eyJhIjoxfQ']) {
        const res = await t.request('GET', `${list}?cursor=${cursor}`, { token: owner.apiKey });
        expect({ list, cursor, status: res.status, error: res.body.error }).toEqual({
          list,
          cursor,
          status: 422,
          error: expect.objectContaining({
            code: 'invalid_cursor',
            details: [{ field: 'cursor', problem: 'is not a cursor returned by this list' }],
          }),
        });
      }
    }
  });

  it('refuses a callback_url that is not a URL with the same 422 on /v1/webhooks/test as on /v1/jobs', async () => {
    const test = await t.request('POST', '/v1/webhooks/test', {
      token: owner.apiKey,
      body: { callback_url: 'not a url' },
    });
    const job = await t.request('POST', '/v1/jobs', {
      token: owner.apiKey,
      body: { callback_url: 'not a url', request: SMALL_SIMULATION },
    });
    expect(test.status).toBe(422);
    expect(test.body.error.details).toEqual([{ field: 'callback_url', problem: 'must be an absolute URL' }]);
    expect(job.status).toBe(422);
    expect(job.body.error.details).toEqual(test.body.error.details);
  });

  it('answers a known path with a wrong method 405 method_not_allowed with Allow, and an unknown path 404', async () => {
    const jobs = await t.request('DELETE', '/v1/jobs', { token: owner.apiKey });
    expect(jobs.status).toBe(405);
    expect(jobs.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(jobs.body.error).toMatchObject({
      code: 'method_not_allowed',
      message: 'DELETE is not allowed on /v1/jobs: use GET, HEAD, POST.',
      request_id: jobs.headers.get('x-request-id'),
    });
    const login = await t.request('GET', '/auth/login?x=1');
    expect(login.status).toBe(405);
    expect(login.headers.get('allow')).toBe('POST');
    const byId = await t.request('PUT', '/v1/jobs/job_123', { token: owner.apiKey });
    expect(byId.status).toBe(405);
    expect(byId.headers.get('allow')).toBe('DELETE, GET, HEAD');
    const unknown = await t.request('DELETE', '/v1/nothing-here', { token: owner.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('names the refused key of a __proto__ body, and the position of malformed JSON', async () => {
    const proto = await t.request('POST', '/auth/login', {
      rawBody: '{"email":"a@example.test","password":"x","__proto__":{"admin":true}}',
      headers: json,
    });
    expect(proto.status).toBe(400);
    expect(proto.body.error.code).toBe('invalid_json');
    expect(proto.body.error.message).toContain('__proto__');
    expect(proto.body.error.message).toContain('prototype pollution');
    expect(proto.body.error.details).toEqual([{ field: '__proto__', problem: expect.any(String) }]);

    const malformed = await t.request('POST', '/auth/login', { rawBody: '{"email": }', headers: json });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toBe(
      'The request body is not valid JSON: unexpected "}" at position 10 (line 1, column 11).',
    );
  });

  it('says a missing field is required, names unknown fields one way, and reports every bad field', async () => {
    const missing = await t.request('POST', '/auth/login', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([
      { field: 'email', problem: 'is required' },
      { field: 'password', problem: 'is required' },
    ]);

    const unknown = await t.request('POST', '/auth/login', {
      body: { email: 'a@example.test', password: 'long enough password', remember: true },
    });
    expect(unknown.body.error.details).toEqual([
      { field: 'remember', problem: 'is not a known field; allowed fields are email, password' },
    ]);
    const unknownNested = await t.request('POST', '/v1/simulate', {
      token: owner.apiKey,
      body: { scenario: { colour: 'red' } },
    });
    expect(unknownNested.body.error.details).toContainEqual({
      field: 'scenario.colour',
      problem:
        'is not a known field; allowed fields are objective, target, variables, correlations_from_data, model, actions, correlations, adjust_correlations',
    });

    const providerKey = await t.request('POST', '/v1/provider-keys', {
      token: owner.apiKey,
      body: { backend: 'Not Valid', api_key: '  ' },
    });
    expect(providerKey.status).toBe(422);
    expect(providerKey.body.error.details).toEqual([
      { field: 'backend', problem: expect.stringContaining('backend must be 1 to 64') },
      { field: 'api_key', problem: 'must not be empty' },
    ]);
  });

  it('says in English why a connector cannot be browsed yet', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token: owner.apiKey,
      body: { name: 'untested', connector_type: 'postgres', config: { database: 'd', user: 'u' } },
    });
    expect(created.status).toBe(201);
    const browse = await t.request('GET', `/v1/connectors/${created.body.id}/browse`, {
      token: owner.apiKey,
    });
    expect(browse.status).toBe(409);
    expect(browse.body.error.message).toBe(
      'The connector has not been tested yet: test it successfully before browsing.',
    );
  });

  it('refuses a data connect query that is not a SELECT before any database is asked', async () => {
    const res = await t.request('POST', '/v1/data/connect', {
      token: owner.apiKey,
      body: {
        connection_type: 'postgres',
        connection_id: 'con_that_does_not_exist',
        dataset_name: 'sales',
        query: '  delete from sales',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      {
        field: 'query',
        problem: 'must be one read-only SELECT statement: DELETE statements are not allowed',
      },
    ]);
  });

  it('answers an MCP POST without the Accept it needs with 406 in the error body of every route', async () => {
    const res = await t.request('POST', '/mcp', {
      token: owner.apiKey,
      headers: { accept: 'application/json' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({
      error: {
        code: 'not_acceptable',
        message: 'MCP over Streamable HTTP needs the header Accept: application/json, text/event-stream.',
        request_id: res.headers.get('x-request-id'),
      },
    });
  });
});
