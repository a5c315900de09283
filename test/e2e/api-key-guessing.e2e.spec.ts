import { randomBytes } from 'node:crypto';
import { signupAccount, TestAccount } from '../factories/accounts';
import { requestFrom } from '../support/source-address';
import { startTestApp, TestApp } from '../support/test-app';

const madeUpKey = (): string => `dsk_live_${randomBytes(32).toString('base64url')}`;

describe('failed API-key presentations', () => {
  let t: TestApp;
  let operator: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_API_KEY_FAILURES_PER_IP: '3' });
    operator = await signupAccount(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const meFrom = (ip: string, token: string) => requestFrom(t.baseUrl, ip, 'GET', '/v1/me', { token });

  it('are throttled per source address with 429 and Retry-After, and audited without the secret', async () => {
    const guesses = [madeUpKey(), madeUpKey(), madeUpKey()];
    for (const guess of guesses) {
      const res = await meFrom('127.0.0.5', guess);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    const fourth = madeUpKey();
    const throttled = await meFrom('127.0.0.5', fourth);
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('rate_limited');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(200);
    expect((await meFrom('127.0.0.5', 'not-a-key-at-all')).status).toBe(429);

    const elsewhere = await meFrom('127.0.0.6', operator.apiKey);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.organization.id).toBe(operator.orgId);
    expect((await meFrom('127.0.0.6', madeUpKey())).status).toBe(401);
    // The key is now in memory: a throttled address may still use it.
    expect((await meFrom('127.0.0.5', operator.apiKey)).status).toBe(200);

    const log = await t.request('GET', '/v1/audit-log?limit=1000', { token: operator.apiKey });
    expect(log.status).toBe(200);
    const fromGuesser = (log.body.events as any[]).filter((e) => e.ip === '127.0.0.5');
    expect(fromGuesser.filter((e) => e.event === 'api_key_rejected').map((e) => e.details)).toEqual(
      guesses.reverse().map((g) => ({ reason: 'unknown_revoked_or_expired', key_prefix: g.slice(0, 12) })),
    );
    expect(fromGuesser.filter((e) => e.event === 'api_key_throttled')).toEqual([
      expect.objectContaining({
        actor: { type: 'anonymous' },
        org_id: null,
        details: { failures: 3, window_s: 300 },
      }),
    ]);
    for (const secret of [...guesses, fourth]) expect(log.text).not.toContain(secret.slice(12));
  });
});
