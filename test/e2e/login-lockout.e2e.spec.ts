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

  it('checks at most 5 of 200 simultaneous passwords for one account and address, 20 for unknown accounts', async () => {
    const account = await signupAccount(t);
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        loginFrom('127.0.3.1', account.email, i === 100 ? account.password : WRONG),
      ),
    );
    const checked = burst.filter((r) => r.status === 401 || r.status === 200);
    expect(checked.length).toBe(5);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(195);

    const unknown = await Promise.all(
      Array.from({ length: 60 }, (_, i) => loginFrom('127.0.3.2', `nobody${i}@x.test`, WRONG)),
    );
    expect(unknown.filter((r) => r.status === 401)).toHaveLength(20);
    expect(unknown.filter((r) => r.status === 429)).toHaveLength(40);
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

describe('password hashing queue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_PASSWORD_HASH_CONCURRENCY: '1', SERVICE_PASSWORD_HASH_QUEUE: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 with Retry-After once the queue is full, without counting the attempt as a failure', async () => {
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        requestFrom(t.baseUrl, `127.0.4.${i + 1}`, 'POST', '/auth/login', {
          body: { email: 'nobody@x.test', password: WRONG },
        }),
      ),
    );
    const busy = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(3);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.length + burst.filter((r) => r.status === 401).length).toBe(12);
    for (const r of busy) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.body.error.message).toMatch(/password checks/);
      expect(r.headers.get('retry-after')).toBe('1');
    }

    const refused = burst.findIndex((r) => r.status === 429);
    for (let i = 0; i < 5; i += 1) {
      const again = await requestFrom(t.baseUrl, `127.0.4.${refused + 1}`, 'POST', '/auth/login', {
        body: { email: 'nobody@x.test', password: WRONG },
      });
      expect(again.status).toBe(401);
    }
  });
});
