import { createHmac } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { startTestApp, TestApp } from '../support/test-app';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { createApiKey, signupAccount } from '../factories/accounts';

function verifyStandard(secret: string, headers: IncomingMessage['headers'], body: Buffer): string[] {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body.toString('utf8')}`;
  const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(headers['webhook-signature'])
    .split(' ')
    .filter((part) => part === expected);
}

describe('POST /v1/webhooks/test and signing secrets', () => {
  let t: TestApp;
  let ok: Receiver;
  let failing: Receiver;
  let slow: Receiver;
  let blocked: Receiver;
  let owner: string;
  let member: string;

  beforeAll(async () => {
    ok = await startReceiver();
    failing = await startReceiver((_req, res: ServerResponse) => {
      res.statusCode = 503;
      res.end('down');
    });
    slow = await startReceiver(() => undefined); // never answers
    blocked = await startReceiver();
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: [ok.port, failing.port, slow.port].map((p) => `127.0.0.1:${p}`).join(','),
      SERVICE_WEBHOOK_TIMEOUT_MS: '3000',
    });
    owner = (await signupAccount(t)).apiKey;
    member = (await createApiKey(t, owner, { label: 'member', role: 'member' })).rawKey;
  });

  afterAll(async () => {
    await t.close();
    await Promise.all([ok.close(), failing.close(), slow.close(), blocked.close()]);
  });

  it('delivers one signed webhook.test POST that verifies with the signing secret', async () => {
    const secret = (await t.request('GET', '/v1/webhooks/signing-secret', { token: owner })).body
      .signing_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const res = await t.request('POST', '/v1/webhooks/test', {
      token: owner,
      body: { callback_url: `${ok.url}/hook` },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status_code: 200, message: expect.any(String) });
    expect(ok.requests).toHaveLength(1);
    const delivery = ok.requests[0];
    expect(delivery.method).toBe('POST');
    expect(delivery.url).toBe('/hook');
    expect(delivery.headers['x-webhook-event']).toBe('webhook.test');
    expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({ event: 'webhook.test' });
    const hex = createHmac('sha256', Buffer.from(secret, 'utf8')).update(delivery.body).digest('hex');
    expect(delivery.headers['x-webhook-signature']).toBe(`sha256=${hex}`);
    expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Number(delivery.headers['webhook-timestamp'])).toBeGreaterThan(1_700_000_000);
    expect(verifyStandard(secret, delivery.headers, delivery.body)).toHaveLength(1);
  });

  it('reports a blocked destination without connecting', async () => {
    const res = await t.request('POST', '/v1/webhooks/test', {
      token: owner,
      body: { callback_url: `${blocked.url}/` },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.status_code).toBe(0);
    expect(res.body.message).toMatch(/egress policy/i);
    expect(blocked.connections).toBe(0);
  });

  it('reports a non-2xx receiver with its status', async () => {
    const res = await t.request('POST', '/v1/webhooks/test', {
      token: owner,
      body: { callback_url: failing.url },
    });
    expect(res.body).toMatchObject({ success: false, status_code: 503 });
    expect(res.body.message).toContain('503');
    expect(failing.requests).toHaveLength(1);
  });

  it('gives up after the configured timeout', async () => {
    const res = await t.request('POST', '/v1/webhooks/test', {
      token: owner,
      body: { callback_url: slow.url },
    });
    expect(res.body).toMatchObject({ success: false, status_code: 0 });
    expect(res.body.message).toMatch(/did not answer within 3000 ms/);
  });

  it('validates the body', async () => {
    const res = await t.request('POST', '/v1/webhooks/test', { token: owner, body: {} });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('keeps the signing secret for admins and signs with both secrets during the grace period', async () => {
    const denied = await t.request('GET', '/v1/webhooks/signing-secret', { token: member });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_role');

    const before = (await t.request('GET', '/v1/webhooks/signing-secret', { token: owner })).body
      .signing_secret;
    const rotated = await t.request('POST', '/v1/webhooks/signing-secret/rotate', { token: owner });
    expect(rotated.status).toBe(200);
    const after = rotated.body.signing_secret;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    expect(new Date(rotated.body.previous_valid_until).getTime()).toBeGreaterThan(Date.now());
    expect(
      (await t.request('GET', '/v1/webhooks/signing-secret', { token: owner })).body.signing_secret,
    ).toBe(after);

    ok.requests.length = 0;
    await t.request('POST', '/v1/webhooks/test', { token: owner, body: { callback_url: ok.url } });
    const delivery = ok.requests[0];
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandard(after, delivery.headers, delivery.body)).toHaveLength(1);
    expect(verifyStandard(before, delivery.headers, delivery.body)).toHaveLength(1);
    const hex = createHmac('sha256', Buffer.from(after, 'utf8')).update(delivery.body).digest('hex');
    expect(delivery.headers['x-webhook-signature']).toBe(`sha256=${hex}`);
  });

  it('needs a credential', async () => {
    for (const [method, path] of [
      ['POST', '/v1/webhooks/test'],
      ['GET', '/v1/webhooks/signing-secret'],
      ['POST', '/v1/webhooks/signing-secret/rotate'],
    ]) {
      const res = await t.request(method, path, method === 'POST' ? { body: {} } : {});
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('authentication_required');
    }
  });
});
