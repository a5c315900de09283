import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * U+0000 in text: SQLite stores it, PostgreSQL refuses it in every text column, so the same request would be
 * accepted on one store and fail inside the other. It is refused at the door on both (npm run test:pg runs this).
 */
describe('HTTP input: the NUL character in text', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a JSON string holding U+0000 is refused with 422 naming the field; nothing is stored', async () => {
    const res = await t.request('POST', '/v1/api-keys', {
      token: key,
      rawBody: '{"label":"ops\\u0000key"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      { field: 'label', problem: 'contains the character U+0000, which no text in this API may hold' },
    ]);
    const listed = await t.request('GET', '/v1/api-keys', { token: key });
    expect(listed.body.keys.map((k: { label: string }) => k.label)).not.toContain('ops\u0000key');
  });

  it('names nested fields and object keys by their path', async () => {
    const res = await t.request('POST', '/v1/simulate', {
      token: key,
      rawBody: JSON.stringify({
        runs: 100,
        scenario: { variables: { 'x\u0000': { low: 1, high: 2 } }, actions: [{ name: 'a' }] },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      {
        field: 'scenario.variables',
        problem: 'has a key that contains the character U+0000, which no text in this API may hold',
      },
    ]);
  });

  it('an escaped backslash followed by "u0000" is ordinary text', async () => {
    const res = await t.request('POST', '/v1/api-keys', {
      token: key,
      rawBody: '{"label":"dir\\\\u0000"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(res.body.label).toBe('dir\\u0000');
  });

  it.each([
    ['a path parameter', '/v1/connectors/con_abc%00'],
    ['a query parameter', '/v1/triggers?cursor=abc%00def'],
  ])('%s holding %00 is refused with 400 malformed_request, not a store error', async (_what, url) => {
    const res = await t.request('GET', url, { token: key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_request');
    expect(res.body.error.message).toBe(
      'The request URL contains the character U+0000 (%00), which no text in this API may hold.',
    );
    // Found by the HTTP fuzz: this answer came without the X-Request-Id header its body names.
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
  });
});
