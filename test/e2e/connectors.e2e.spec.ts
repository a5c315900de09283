import { startTestApp, TestApp } from '../support/test-app';

describe('connectors routes (booted daemon)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
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

  it('an upload without a credential is refused before any byte is stored', async () => {
    const response = await t.request('POST', '/v1/connectors/uploads', {
      rawBody: Buffer.alloc(64 * 1024, 1),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(response.status).toBe(401);
  });
});
