import { signupAccount } from '../factories/accounts';
import { requestFrom } from '../support/source-address';
import { startTestApp, TestApp } from '../support/test-app';

const WRONG = 'wrong password!!';

describe('login throttling per account and source address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_LOGIN_ACCOUNT_BACKSTOP: '8', SERVICE_LOGIN_BACKSTOP_DELAY_S: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const loginFrom = (ip: string, email: string, password: string) =>
    requestFrom(t.baseUrl, ip, 'POST', '/auth/login', { body: { email, password } });

  async function auditEvents(token: string, event: string): Promise<any[]> {
    const res = await t.request('GET', '/v1/audit-log?limit=1000', { token });
    expect(res.status).toBe(200);
    return (res.body.events as any[]).filter((e) => e.event === event);
  }

  it('refuses only the source that failed: the right password from another address still logs in', async () => {
    const account = await signupAccount(t);
    for (let i = 0; i < 5; i += 1)
      expect((await loginFrom('127.0.0.2', account.email, WRONG)).status).toBe(401);

    const blocked = await loginFrom('127.0.0.2', account.email, account.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);

    const elsewhere = await loginFrom('127.0.0.3', account.email, account.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.token_type).toBe('bearer');

    const throttled = await auditEvents(account.apiKey, 'login_throttled');
    expect(throttled).toHaveLength(1);
    expect(throttled[0]).toMatchObject({
      ip: '127.0.0.2',
      actor: { type: 'user', id: account.userId },
      details: { scope: 'account_source', email: account.email, failures: 5, window_s: 900 },
    });
  });

  it('above the account-wide backstop delays a correct login from a new source instead of refusing it', async () => {
    const account = await signupAccount(t);
    for (let i = 0; i < 9; i += 1) {
      expect((await loginFrom(`127.0.1.${10 + i}`, account.email, WRONG)).status).toBe(401);
    }

    const fresh = await loginFrom('127.0.2.1', account.email, account.password);
    expect(fresh.status).toBe(200);

    const engaged = await auditEvents(account.apiKey, 'login_backstop_engaged');
    expect(engaged).toHaveLength(1);
    expect(engaged[0]).toMatchObject({
      ip: '127.0.1.18',
      details: { email: account.email, failures: 9, window_s: 900, delay_s: 1 },
    });
    const succeeded = await auditEvents(account.apiKey, 'login_succeeded');
    expect(succeeded.find((e) => e.ip === '127.0.2.1')?.details).toEqual({ delayed_s: 1 });
    expect(await auditEvents(account.apiKey, 'login_throttled')).toHaveLength(0);
  });
});
