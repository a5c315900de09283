import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, StoreOrm } from '../../src/common/database';
import { isStoreUnavailable, toAppError } from '../../src/common/errors';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { startTcpProxy } from '../support/tcp-proxy';

/** What the real drivers throw, sorted into "the database is unreachable" (503) and everything else. */
describe('isStoreUnavailable', () => {
  let db: TestDatabase;
  let orm: StoreOrm;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ kind: 'postgresql', url: db.url });
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  const failureOf = async (work: () => Promise<unknown>): Promise<unknown> => {
    try {
      await work();
    } catch (error) {
      return error;
    }
    throw new Error('expected a failure');
  };

  /** A fresh SQLite database for `work`, closed and removed after it. */
  const withSqlite = async (work: (sqlite: StoreOrm) => Promise<void>): Promise<void> => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-store-unavailable-'));
    const sqlite = await openDatabase(join(dir, 'service.sqlite'));
    try {
      await work(sqlite);
    } finally {
      await sqlite.close(true);
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('knows a refused connection, and answers it 503 store_unavailable with Retry-After', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    await proxy.cut();
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const refused = await failureOf(() => openDatabase({ kind: 'postgresql', url: url.toString() }));
    await proxy.close();
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isStoreUnavailable(refused)).toBe(true);
    const answer = toAppError(refused);
    expect([answer.status, answer.code, answer.headers]).toEqual([
      503,
      'store_unavailable',
      { 'retry-after': '5' },
    ]);
  });

  it('knows a session the server terminated (57P01)', async () => {
    const killed = await failureOf(() =>
      orm.em.fork().getConnection().execute('select pg_terminate_backend(pg_backend_pid())'),
    );
    expect((killed as { code?: string }).code).toBe('57P01');
    expect(isStoreUnavailable(killed)).toBe(true);
    // The pool may lend the killed connection once more before it notices; that failure is also a retryable one.
    const next = await orm.em
      .fork()
      .getConnection()
      .execute('select 1 as one')
      .catch((error: unknown) => error);
    if (next instanceof Error) expect(isStoreUnavailable(next)).toBe(true);
    expect((await orm.em.fork().getConnection().execute('select 1 as one'))[0]).toEqual({ one: 1 });
  });

  it('leaves a statement the server refuses to the other answers', async () => {
    const syntax = await failureOf(() => orm.em.fork().getConnection().execute('selec 1'));
    expect(isStoreUnavailable(syntax)).toBe(false);
    expect(toAppError(syntax).code).toBe('internal_error');
  });

  it('never matches a statement SQLite refuses', () =>
    withSqlite(async (sqlite) => {
      const missing = await failureOf(() =>
        sqlite.em.fork().getConnection().execute('select * from nowhere'),
      );
      expect(isStoreUnavailable(missing)).toBe(false);
    }));

  it('knows a SQLite file that cannot be written, and answers it 503 store_unavailable without SQLite words', () =>
    withSqlite(async (sqlite) => {
      // The one pooled connection refuses writes as a read-only file would (a disk failing them is in
      // test/reliability/write-faults.reliability.spec.ts).
      await sqlite.em.fork().getConnection().execute('pragma query_only = on');
      const refused = await failureOf(() =>
        sqlite.em.fork().getConnection().execute('create table t (a integer)'),
      );
      expect((refused as { code?: string }).code).toBe('SQLITE_READONLY');
      expect(isStoreUnavailable(refused)).toBe(true);
      const answer = toAppError(refused);
      expect([answer.status, answer.code, answer.headers]).toEqual([
        503,
        'store_unavailable',
        { 'retry-after': '5' },
      ]);
      expect(answer.message).not.toMatch(/SQLITE/);
    }));
});
