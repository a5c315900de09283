import { hubSignature } from '../../src/modules/repohost/hub-signature';
import { InboundDeliveryRepository } from '../../src/modules/repohost/inbound-delivery.repository';
import { createApiKey, signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'repohost-test-secret';

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function deliver(t: TestApp, body: string, headers: Record<string, string>) {
  return t.request('POST', '/webhooks/repohost', {
    rawBody: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('inbound repository-host receiver', () => {
  let t: TestApp;
  let repo: InboundDeliveryRepository;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_REPOHOST_WEBHOOK_SECRET: SECRET });
    repo = t.app.get(InboundDeliveryRepository);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The first account signed up is the operator organization's; set by the operator-only test. */
  let operatorKey = '';
  const stored = async (deliveryId: string) =>
    (await repo.list({ limit: 500 })).items.find((d) => d.deliveryId === deliveryId);

  it('accepts a correctly signed delivery with 202 and processes it asynchronously', async () => {
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const res = await deliver(t, body, {
      'x-hub-signature-256': hubSignature(SECRET, body),
      'x-github-delivery': 'd-ping-1',
      'x-github-event': 'ping',
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true, delivery_id: 'd-ping-1', duplicate: false });
    const processed = await waitFor(async () => {
      const d = await stored('d-ping-1');
      return d?.status === 'processed' ? d : undefined;
    });
    expect(processed.attempts).toBe(1);
    expect(processed.event).toBe('ping');
  });

  it('answers a replay with 202 and does not process it again', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/app' } });
    const headers = {
      'x-hub-signature-256': hubSignature(SECRET, body),
      'x-github-delivery': 'd-push-1',
      'x-github-event': 'push',
    };
    expect((await deliver(t, body, headers)).body.duplicate).toBe(false);
    await waitFor(async () => ((await stored('d-push-1'))?.status === 'processed' ? true : undefined));
    const replay = await deliver(t, body, headers);
    expect(replay.status).toBe(202);
    expect(replay.body.duplicate).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect((await stored('d-push-1'))?.attempts).toBe(1);
  });

  it('records a malformed event as failed with the reason', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    await deliver(t, body, {
      'x-hub-signature-256': hubSignature(SECRET, body),
      'x-github-delivery': 'd-push-bad',
      'x-github-event': 'push',
    });
    const failed = await waitFor(async () => {
      const d = await stored('d-push-bad');
      return d?.status === 'failed' ? d : undefined;
    });
    expect(failed.lastError).toBe('the payload has no repository.full_name');
  });

  it('records unknown events as processed', async () => {
    const body = JSON.stringify({ action: 'starred' });
    await deliver(t, body, {
      'x-hub-signature-256': hubSignature(SECRET, body),
      'x-github-delivery': 'd-star-1',
      'x-github-event': 'star',
    });
    await waitFor(async () => ((await stored('d-star-1'))?.status === 'processed' ? true : undefined));
  });

  it.each([
    ['missing', undefined],
    ['wrong secret', hubSignature('other-secret', '{"a":1}')],
    ['malformed', 'sha1=abcdef'],
    ['for another body', hubSignature(SECRET, '{"a":2}')],
  ])('refuses a %s signature with 401 invalid_signature and records nothing', async (_case, signature) => {
    const headers: Record<string, string> = {
      'x-github-delivery': `d-sig-${_case}`,
      'x-github-event': 'ping',
    };
    if (signature) headers['x-hub-signature-256'] = signature;
    const res = await deliver(t, '{"a":1}', headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_signature');
    expect(await stored(`d-sig-${_case}`)).toBeUndefined();
  });

  it('requires the delivery id and event headers', async () => {
    const body = '{"a":1}';
    const res = await deliver(t, body, { 'x-hub-signature-256': hubSignature(SECRET, body) });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'X-GitHub-Delivery',
      'X-GitHub-Event',
    ]);
  });

  it('accepts a signed 10 MB body', async () => {
    const body = JSON.stringify({
      repository: { full_name: 'acme/big' },
      blob: 'x'.repeat(10 * 1024 * 1024),
    });
    const res = await deliver(t, body, {
      'x-hub-signature-256': hubSignature(SECRET, body),
      'x-github-delivery': 'd-big-1',
      'x-github-event': 'push',
    });
    expect(res.status).toBe(202);
    await waitFor(async () => ((await stored('d-big-1'))?.status === 'processed' ? true : undefined), 10000);
  });

  it('shows inbound deliveries to operator admins only', async () => {
    const operator = await signupAccount(t);
    operatorKey = operator.apiKey;
    const outsider = await signupAccount(t);
    const operatorMember = (await createApiKey(t, operator.apiKey, { role: 'member' })).rawKey;

    const res = await t.request('GET', '/v1/webhooks/inbound?limit=500', { token: operator.apiKey });
    expect(res.status).toBe(200);
    const ping = res.body.deliveries.find((d: { delivery_id: string }) => d.delivery_id === 'd-ping-1');
    expect(ping).toEqual({
      delivery_id: 'd-ping-1',
      event: 'ping',
      received_at: (await stored('d-ping-1'))?.receivedAt.toISOString(),
      status: 'processed',
      attempts: 1,
      error: null,
      processed_at: expect.any(String),
    });
    const failed = res.body.deliveries.find((d: { delivery_id: string }) => d.delivery_id === 'd-push-bad');
    expect(failed).toMatchObject({ status: 'failed', error: 'the payload has no repository.full_name' });
    const receivedAt = res.body.deliveries.map((d: { received_at: string }) => d.received_at);
    expect(receivedAt).toEqual([...receivedAt].sort().reverse());

    const member = await t.request('GET', '/v1/webhooks/inbound', { token: operatorMember });
    expect([member.status, member.body.error.code]).toEqual([403, 'insufficient_role']);
    const foreign = await t.request('GET', '/v1/webhooks/inbound', { token: outsider.apiKey });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'forbidden']);
    const badLimit = await t.request('GET', '/v1/webhooks/inbound?limit=0', { token: operator.apiKey });
    expect([badLimit.status, badLimit.body.error.code]).toEqual([422, 'validation_failed']);
  });

  it('pages inbound deliveries by cursor, and still by `before`', async () => {
    const operator = { apiKey: operatorKey };
    const all = await t.request('GET', '/v1/webhooks/inbound?limit=500', { token: operator.apiKey });
    const ids = all.body.deliveries.map((d: { delivery_id: string }) => d.delivery_id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(all.body.next_cursor).toBeNull();
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await t.request('GET', `/v1/webhooks/inbound?limit=2${query}`, { token: operator.apiKey });
      expect(page.status).toBe(200);
      expect(page.body.deliveries.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.deliveries.map((d: { delivery_id: string }) => d.delivery_id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(walked).toEqual(ids);
    const oldest = all.body.deliveries[all.body.deliveries.length - 1].received_at as string;
    const before = await t.request('GET', `/v1/webhooks/inbound?before=${encodeURIComponent(oldest)}`, {
      token: operator.apiKey,
    });
    expect(before.body.deliveries).toEqual([]);
    const bad = await t.request('GET', '/v1/webhooks/inbound?cursor=abc', { token: operator.apiKey });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      { field: 'cursor', problem: 'is not a cursor returned by this list' },
    ]);
  });

  it('answers the inbound list only with a credential', async () => {
    const res = await t.request('GET', '/v1/webhooks/inbound');
    expect(res.status).toBe(401);
  });
});

describe('inbound receiver without a secret', () => {
  it('refuses every delivery', async () => {
    const t = await startTestApp();
    try {
      const body = '{"zen":"x"}';
      const res = await deliver(t, body, {
        'x-hub-signature-256': hubSignature('anything', body),
        'x-github-delivery': 'd-1',
        'x-github-event': 'ping',
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_signature');
      expect(res.body.error.message).toContain('SERVICE_REPOHOST_WEBHOOK_SECRET');
    } finally {
      await t.close();
    }
  });
});
