import { loadConfig } from '../../src/common/config';
import { openDatabase, StoreOrm } from '../../src/common/database';
import { WindowCounters } from '../../src/common/rate-limits';
import { LoginThrottle } from '../../src/modules/accounts/login-throttle';
import { createTestDatabase, queryTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';

/** Two replicas, each with its own ORM and pool, on one PostgreSQL database. */
describe('window counters of two replicas on one PostgreSQL database', () => {
  let db: TestDatabase;
  let orms: StoreOrm[];
  let replicas: WindowCounters[];

  beforeEach(async () => {
    db = await createTestDatabase();
    orms = [
      await openDatabase({ kind: 'postgresql', url: db.url }),
      await openDatabase({ kind: 'postgresql', url: db.url }),
    ];
    const config = loadConfig({
      NODE_ENV: 'test',
      ...sharedSecretsEnv('/nonexistent/keys'),
      SERVICE_DATABASE_URL: db.url,
    });
    replicas = orms.map((orm) => new WindowCounters(config, orm.em));
  });

  afterEach(async () => {
    for (const orm of orms) await orm.close(true);
    await db.drop();
  });

  it('count in the table the migrations made, keyed by digests', async () => {
    const tables = await queryTestDatabase<{ table_name: string }>(
      db.url,
      "select table_name from information_schema.tables where table_name like 'rate_limit%' order by 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(['rate_limits']);
    await replicas[0].create('probe', 5, 60).hit(['203.0.113.7']);
    const rows = await queryTestDatabase<{ key: string; points: number }>(
      db.url,
      'select key, points from rate_limits',
    );
    expect(rows).toEqual([{ key: expect.stringMatching(/^probe:[A-Za-z0-9_-]{43}$/) as string, points: 1 }]);
  });

  it('never create their table themselves', async () => {
    await queryTestDatabase(db.url, 'drop table rate_limits');
    await expect(replicas[1].create('late', 5, 60).hit(['k'])).rejects.toMatchObject({ code: '42P01' });
    const tables = await queryTestDatabase(
      db.url,
      "select 1 from information_schema.tables where table_name = 'rate_limits'",
    );
    expect(tables).toEqual([]);
  });

  it('share one count: what one replica counts, gives back or resets, the other sees', async () => {
    const [a, b] = replicas.map((r) => r.create('shared', 3, 900));
    const first = await a.take(['k']);
    expect(first).toMatchObject({ counted: true, count: 1 });
    expect(await b.take(['k'])).toMatchObject({ counted: true, count: 2 });
    expect(await a.hit(['k'])).toBe(3);
    const refused = await b.take(['k']);
    expect(refused.counted).toBe(false);
    expect(refused.counted ? 0 : refused.retryAfterMs).toBeGreaterThan(890_000);
    expect(await a.retryAfterMs(['k'])).toBeGreaterThan(890_000);
    expect(await a.count(['k'])).toBe(3);
    if (first.counted) await a.release(['k'], first);
    expect(await b.take(['k'])).toMatchObject({ counted: true, count: 3 });
    await b.reset(['k']);
    expect(await a.count(['k'])).toBe(0);
  });

  it('let a password reset on one replica clear the account on both', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      ...sharedSecretsEnv('/nonexistent/keys'),
      SERVICE_DATABASE_URL: db.url,
      SERVICE_LOGIN_ACCOUNT_BACKSTOP: '9',
    });
    const [a, b] = replicas.map((r) => new LoginThrottle(config, r));
    for (let i = 0; i < 5; i += 1) {
      await a.recordFailure(await a.admit('a@x.test', '10.0.0.1'));
      await b.recordFailure(await b.admit('a@x.test', '10.0.0.2'));
    }
    for (const [t, ip] of [
      [a, '10.0.0.2'],
      [b, '10.0.0.1'],
    ] as const) {
      await expect(t.admit('a@x.test', ip)).rejects.toMatchObject({ code: 'rate_limited' });
    }
    expect((await b.admit('a@x.test', '10.0.0.3')).delayMs).toBeGreaterThan(0);

    await a.clearAccount('a@x.test');

    expect(await b.admit('a@x.test', '10.0.0.1')).toMatchObject({ delayMs: 0 });
    expect(await a.admit('a@x.test', '10.0.0.2')).toMatchObject({ delayMs: 0 });
    expect(await b.admit('a@x.test', '10.0.0.4')).toMatchObject({ delayMs: 0 });
  });
});
