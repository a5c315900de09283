import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';

async function signUp(t: TestApp, email: string): Promise<string> {
  const response = await t.request('POST', '/auth/signup', {
    body: {
      email,
      password: 'correct horse battery staple',
      name: 'Test Person',
      organization_name: `Org of ${email}`,
    },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return response.body.api_key.raw_key as string;
}

describe('connectors over HTTP (booted daemon)', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_PREVIEW_RATE_LIMIT: '3', SERVICE_MAX_UPLOAD_BYTES: '4096' });
    key = await signUp(t, 'owner@connectors.test');
    otherKey = await signUp(t, 'other@connectors.test');
  });

  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['GET', '/v1/connectors/types'],
    ['GET', '/v1/connectors'],
    ['POST', '/v1/connectors'],
    ['GET', '/v1/connectors/con_x'],
    ['PATCH', '/v1/connectors/con_x'],
    ['DELETE', '/v1/connectors/con_x'],
    ['POST', '/v1/connectors/con_x/test'],
    ['GET', '/v1/connectors/con_x/browse'],
    ['POST', '/v1/connectors/test'],
    ['POST', '/v1/connectors/browse'],
    ['POST', '/v1/connectors/uploads'],
  ])('%s %s needs a credential', async (method, path) => {
    const response = await t.request(method, path);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('authentication_required');
  });

  it('lists the types including file_upload', async () => {
    const response = await t.request('GET', '/v1/connectors/types', { token: key });
    expect(response.status).toBe(200);
    expect(response.body.types).toEqual(
      expect.arrayContaining(['postgres', 'file', 'file_upload', 'rest', 'azure', 'repo_archive']),
    );
    const postgres = response.body.descriptions.find((d: { type: string }) => d.type === 'postgres');
    expect(postgres).toMatchObject({ family: 'sql', aliases: ['postgresql'], open_config: false });
    expect(postgres.fields).toContainEqual({
      name: 'password',
      type: 'string',
      required: false,
      secret: true,
    });
    expect(postgres.fields).toContainEqual(
      expect.objectContaining({ name: 'port', type: 'integer', default: 5432 }),
    );
  });

  it('refuses an unknown type with 422 invalid_type and bad config with 422 validation_failed', async () => {
    const unknown = await t.request('POST', '/v1/connectors', {
      token: key,
      body: { name: 'x', connector_type: 'oracle', config: {} },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('invalid_type');
    expect(unknown.body.error.message).toContain('postgres');
    const bad = await t.request('POST', '/v1/connectors', {
      token: key,
      body: { name: 'x', connector_type: 'rest', config: { method: 'PUT' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ field: 'config.method', problem: 'must be one of GET, POST' }]);
  });

  it('walks create → test → browse → patch → delete, masking secrets and scoping to the org', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token: key,
      body: { name: 'people', connector_type: 'csv', config: { content: 'name,age\nAda,36\nAlan,41\n' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'people',
      connector_type: 'file',
      status: 'untested',
      config: { file_type: 'csv' },
    });
    const id = created.body.id as string;

    expect((await t.request('GET', `/v1/connectors/${id}/browse`, { token: key })).body.error.code).toBe(
      'not_connected',
    );
    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token: key });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      success: true,
      status: 'live',
      message: 'Parsed 2 record(s) from inline content.',
    });
    expect(typeof tested.body.latency_ms).toBe('number');
    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token: key });
    expect(browsed.body).toMatchObject({
      connector_type: 'file',
      total: 2,
      items: [
        { name: 'name', kind: 'field' },
        { name: 'age', kind: 'field' },
      ],
    });

    expect((await t.request('GET', `/v1/connectors/${id}`, { token: otherKey })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/connectors/${id}`, { token: otherKey })).status).toBe(404);

    const patched = await t.request('PATCH', `/v1/connectors/${id}`, {
      token: key,
      body: { config: { content: '' } },
    });
    expect(patched.body).toMatchObject({ status: 'untested', error_message: null });
    const failed = await t.request('POST', `/v1/connectors/${id}/test`, { token: key });
    expect(failed.body).toMatchObject({
      success: false,
      status: 'error',
      error_type: 'invalid_payload',
      recoverable: true,
    });
    expect((await t.request('GET', `/v1/connectors/${id}`, { token: key })).body).toMatchObject({
      status: 'error',
    });

    expect((await t.request('DELETE', `/v1/connectors/${id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/connectors/${id}`, { token: key })).status).toBe(404);
  });

  it('masks secrets in every response', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token: key,
      body: {
        name: 'api',
        connector_type: 'rest_api',
        config: { base_url: 'https://api.example.test', auth: { mode: 'token', token: 'tok-secret' } },
      },
    });
    expect(created.text).not.toContain('tok-secret');
    expect(created.body.config.headers.Authorization).toBe('********');
    const listed = await t.request('GET', '/v1/connectors?limit=500', { token: key });
    expect(listed.text).not.toContain('tok-secret');
  });

  it('a REST test of a blocked destination is egress_blocked', async () => {
    const response = await t.request('POST', '/v1/connectors/test', {
      token: key,
      body: { connector_type: 'rest', config: { base_url: 'http://127.0.0.1:9/' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: false, error_type: 'egress_blocked', recoverable: false });
  });

  it('pages the list with a cursor', async () => {
    for (const name of ['one', 'two']) {
      await t.request('POST', '/v1/connectors', {
        token: key,
        body: { name, connector_type: 'json', config: { content: '[]' } },
      });
    }
    const first = await t.request('GET', '/v1/connectors?limit=1', { token: key });
    expect(first.body.connectors).toHaveLength(1);
    expect(typeof first.body.next_cursor).toBe('string');
    const second = await t.request(
      'GET',
      `/v1/connectors?limit=1&cursor=${encodeURIComponent(first.body.next_cursor as string)}`,
      { token: key },
    );
    expect(second.body.connectors[0].id).not.toBe(first.body.connectors[0].id);
    const bad = await t.request('GET', '/v1/connectors?limit=501', { token: key });
    expect(bad.status).toBe(422);
  });

  it('streams a raw upload into the import dir, and a multipart one', async () => {
    const body = Buffer.from('id,v\n1,2\n');
    const raw = await t.request('POST', '/v1/connectors/uploads', {
      token: key,
      rawBody: body,
      headers: { 'content-type': 'application/octet-stream', 'x-filename': '../../evil name.csv' },
    });
    expect(raw.status).toBe(201);
    expect(raw.body).toMatchObject({
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(raw.body.file_path).toMatch(/^orgs\/[^/]+\/uploads\/[0-9a-f]{32}_evil_name\.csv$/);
    expect(readFileSync(join(t.config.importDir, raw.body.file_path as string)).equals(body)).toBe(true);

    const form = new FormData();
    form.append('file', new Blob([body]), 'form.csv');
    const response = await fetch(`${t.baseUrl}/v1/connectors/uploads`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(201);
    const multipart = (await response.json()) as { file_path: string; bytes: number };
    expect(multipart.bytes).toBe(body.length);

    const tested = await t.request('POST', '/v1/connectors/test', {
      token: key,
      body: { connector_type: 'file', config: { file_path: multipart.file_path } },
    });
    expect(tested.body).toMatchObject({
      success: true,
      message: `Parsed 1 record(s) from ${multipart.file_path}.`,
    });
  });

  it('refuses an upload above SERVICE_MAX_UPLOAD_BYTES with 413', async () => {
    const response = await t.request('POST', '/v1/connectors/uploads', {
      token: key,
      rawBody: Buffer.alloc(8192, 65),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  it('rate limits inline test and browse per key with Retry-After', async () => {
    const call = () =>
      t.request('POST', '/v1/connectors/browse', {
        token: otherKey,
        body: { connector_type: 'json', config: { content: '[{"a":1}]' } },
      });
    const answers = [await call(), await call(), await call(), await call()];
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[0].body).toMatchObject({ connector_type: 'file', items: [{ name: 'a', kind: 'field' }] });
    expect(answers[3].status).toBe(429);
    expect(answers[3].body.error.code).toBe('rate_limited');
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a connector name holding a NUL byte with 422 naming it (no 500)', async () => {
    const name = 'people\u0000of the\u0000 org';
    const created = await t.request('POST', '/v1/connectors', {
      token: key,
      body: { name, connector_type: 'csv', config: { content: 'name\nAda\n' } },
    });
    expect(created.status).toBe(422);
    expect(created.body.error.details).toEqual([
      { field: 'name', problem: 'contains the character U+0000, which no text in this API may hold' },
    ]);
  });
});
