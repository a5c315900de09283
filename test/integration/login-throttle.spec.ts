import { EntityManager } from '@mikro-orm/knex';
import { AppConfig, loadConfig } from '../../src/common/config';
import { openDatabase, StoreOrm } from '../../src/common/database';
import { AppError } from '../../src/common/errors';
import { WindowCounters } from '../../src/common/rate-limits';
import { LoginThrottle } from '../../src/modules/accounts/login-throttle';
import { fakeDateOnly } from '../support/fake-date';
import { createTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';

const MINUTE = 60_000;

/** Two daemons' throttles: one process alone, or two replicas with their own pools on one PostgreSQL database. */
interface Throttles {
  readonly a: (env?: Record<string, string>) => LoginThrottle;
  readonly b: (env?: Record<string, string>) => LoginThrottle;
  close(): Promise<void>;
}

/** One process: `a` and `b` are the same daemon's throttle. */
function memory(): Promise<Throttles> {
  const made = new Map<string, LoginThrottle>();
  const make = (env: Record<string, string> = {}) => {
    const key = JSON.stringify(env);
    if (!made.has(key)) {
      const config = loadConfig({ NODE_ENV: 'test', ...env });
      made.set(
        key,
        new LoginThrottle(config, new WindowCounters(config, undefined as unknown as EntityManager)),
      );
    }
    return made.get(key)!;
  };
  return Promise.resolve({ a: make, b: make, close: () => Promise.resolve() });
}

async function postgresReplicas(): Promise<Throttles> {
  const db: TestDatabase = await createTestDatabase();
  const orms: StoreOrm[] = await Promise.all([
    openDatabase({ kind: 'postgresql', url: db.url }),
    openDatabase({ kind: 'postgresql', url: db.url }),
  ]);
  const replica =
    (orm: StoreOrm) =>
    (env: Record<string, string> = {}) => {
      const config: AppConfig = loadConfig({
        NODE_ENV: 'test',
        ...sharedSecretsEnv('/nonexistent/keys'),
        SERVICE_DATABASE_URL: db.url,
        ...env,
      });
      return new LoginThrottle(config, new WindowCounters(config, orm.em));
    };
  return {
    a: replica(orms[0]),
    b: replica(orms[1]),
    async close() {
      for (const orm of orms) await orm.close(true);
      await db.drop();
    },
  };
}

function at(ms: number): void {
  jest.setSystemTime(ms);
}

async function refusal(run: () => Promise<unknown>): Promise<AppError | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

describe.each([
  ['one process, counted in memory', memory],
  ['two replicas on PostgreSQL, counted in the shared store', postgresReplicas],
])('login throttle: %s', (_name, open) => {
  let throttles: Throttles;
  beforeEach(async () => {
    fakeDateOnly();
    throttles = await open();
  });
  afterEach(async () => {
    await throttles.close();
    jest.useRealTimers();
  });

  /** One attempt that reaches the password check and fails. */
  async function fail(t: LoginThrottle, email: string, ip: string, ms: number) {
    at(ms);
    return t.recordFailure(await t.admit(email, ip));
  }

  it('refuses a (account, source) pair after 5 failures in 15 minutes and no other source', async () => {
    const t = throttles.a();
    const engaged = [];
    for (const i of [0, 1, 2, 3, 4]) engaged.push(await fail(t, 'a@x.test', '10.0.0.1', i * MINUTE));
    expect(engaged).toEqual([[], [], [], [], ['account_source']]);

    const other = throttles.b();
    at(5 * MINUTE);
    const error = await refusal(() => other.admit('a@x.test', '10.0.0.1'));
    expect(error?.code).toBe('rate_limited');
    expect(error?.headers).toEqual({ 'retry-after': String(10 * 60) });
    expect(await other.admit('a@x.test', '10.0.0.2')).toMatchObject({ delayMs: 0 });
    expect(await other.admit('b@x.test', '10.0.0.1')).toMatchObject({ delayMs: 0 });
    at(15 * MINUTE + 1);
    expect(await other.admit('a@x.test', '10.0.0.1')).toMatchObject({ delayMs: 0 });
  });

  it('refuses a source after 20 failures against any accounts', async () => {
    const [a, b] = [throttles.a(), throttles.b()];
    for (let i = 0; i < 19; i += 1)
      expect(await fail(i % 2 ? a : b, `u${i}@x.test`, '10.0.0.9', i)).toEqual([]);
    expect(await fail(a, 'u19@x.test', '10.0.0.9', 19)).toEqual(['source']);
    at(20);
    expect((await refusal(() => b.admit('new@x.test', '10.0.0.9')))?.code).toBe('rate_limited');
  });

  it('lets 5 of 200 simultaneous attempts on one account and address reach the password check', async () => {
    const [a, b] = [throttles.a(), throttles.b()];
    at(1000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).admit('a@x.test', '10.0.0.1')),
    );
    const admitted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(admitted).toHaveLength(5);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused.every((o) => (o.reason as AppError).code === 'rate_limited')).toBe(true);
  });

  it('lets 20 of 100 simultaneous attempts on unknown accounts from one address through', async () => {
    const [a, b] = [throttles.a(), throttles.b()];
    at(1000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).admit(`n${i}@x.test`, '10.0.0.7')),
    );
    const admitted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(admitted).toHaveLength(20);
  });

  it('an attempt released before its password check does not count', async () => {
    const t = throttles.a();
    for (let i = 0; i < 10; i += 1) {
      at(i);
      await t.release(await t.admit('a@x.test', '10.0.0.3'));
    }
    for (let i = 0; i < 4; i += 1) await fail(t, 'a@x.test', '10.0.0.3', 10 + i);
    expect(await fail(t, 'a@x.test', '10.0.0.3', 20)).toEqual(['account_source']);
  });

  it('delays, never refuses, a new source once the account has more than 50 failures', async () => {
    const [a, b] = [
      throttles.a({ SERVICE_LOGIN_BACKSTOP_DELAY_S: '4' }),
      throttles.b({ SERVICE_LOGIN_BACKSTOP_DELAY_S: '4' }),
    ];
    for (let i = 0; i < 50; i += 1)
      expect(await fail(i % 2 ? a : b, 'a@x.test', `10.0.${i}.1`, i)).toEqual([]);
    at(60);
    expect(await a.admit('a@x.test', '10.9.9.9')).toMatchObject({ delayMs: 0 });
    expect(await fail(a, 'a@x.test', '10.0.99.1', 61)).toEqual(['account_backstop']);
    at(62);
    expect(await b.admit('a@x.test', '10.9.9.9')).toMatchObject({ delayMs: 4000 });
    expect(await b.admit('other@x.test', '10.9.9.9')).toMatchObject({ delayMs: 0 });
  });

  it('a success clears its own source, a password reset the whole account', async () => {
    const [a, b] = [
      throttles.a({ SERVICE_LOGIN_ACCOUNT_BACKSTOP: '6' }),
      throttles.b({ SERVICE_LOGIN_ACCOUNT_BACKSTOP: '6' }),
    ];
    for (let i = 0; i < 4; i += 1) await fail(a, 'a@x.test', '10.0.0.1', i);
    at(5);
    await b.recordSuccess(await b.admit('a@x.test', '10.0.0.1'));
    for (let i = 0; i < 5; i += 1) await fail(a, 'a@x.test', '10.0.0.2', i);
    at(10);
    expect((await a.admit('a@x.test', '10.0.0.1')).delayMs).toBeGreaterThan(0);
    expect((await refusal(() => a.admit('a@x.test', '10.0.0.2')))?.code).toBe('rate_limited');
    await b.clearAccount('a@x.test');
    expect(await a.admit('a@x.test', '10.0.0.2')).toMatchObject({ delayMs: 0 });
  });
});
