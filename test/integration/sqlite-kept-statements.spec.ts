import { rmSync } from 'node:fs';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { KEPT_STATEMENTS, KeptStatements } from '../../src/common/database/sqlite-store-driver';
import { makeTempDir } from '../support/test-app';

/** A connection's kept statements as knex drives them, with every prepare counted. */
interface Opened {
  readonly db: sqlite3.Database;
  readonly prepared: string[];
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number; lastID: number }>;
  close(): Promise<void>;
}

async function open(file: string): Promise<Opened> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
  });
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  // Counts what the kept statements prepare (the test's own spy on its own connection).
  db.prepare = ((sql: string, callback: (error: Error | null) => void) => {
    prepared.push(sql);
    return prepare(sql, callback);
  }) as typeof db.prepare;
  const kept = new KeptStatements(db);
  return {
    db,
    prepared,
    all: (sql, params = []) =>
      new Promise((resolve, reject) =>
        kept.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as never))),
      ),
    run: (sql, params = []) =>
      new Promise((resolve, reject) =>
        kept.run(sql, params, function (this: unknown, error: Error | null) {
          if (error) reject(error);
          else {
            const { changes, lastID } = this as sqlite3.RunResult;
            resolve({ changes, lastID });
          }
        }),
      ),
    close: async () => {
      await kept.finalizeAll();
      await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

describe('SQLite kept statements', () => {
  let dir: string;
  let c: Opened;

  beforeEach(async () => {
    dir = makeTempDir('ds-statements-');
    c = await open(join(dir, 'cache.sqlite'));
  });

  afterEach(async () => {
    await c.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prepares a text once and binds each run afresh', async () => {
    await c.run('create table t (id integer primary key, label text)');
    for (let i = 1; i <= 50; i++) {
      const written = await c.run('insert into t (id, label) values (?, ?)', [i, `row ${i}`]);
      expect(written).toEqual({ changes: 1, lastID: i });
    }
    const read = await Promise.all(
      [7, 13, 42].map((id) => c.all<{ label: string }>('select label from t where id = ?', [id])),
    );
    expect(read).toEqual([[{ label: 'row 7' }], [{ label: 'row 13' }], [{ label: 'row 42' }]]);
    expect(c.prepared.filter((sql) => sql.startsWith('insert'))).toHaveLength(1);
    expect(c.prepared.filter((sql) => sql.startsWith('select'))).toHaveLength(1);
  });

  it('runs kept BEGIN and COMMIT around kept reads and writes, and the writes commit', async () => {
    await c.run('create table t (id integer primary key)');
    for (let round = 0; round < 3; round++) {
      await c.all('BEGIN;');
      await c.run('insert into t (id) values (?)', [round]);
      expect(await c.all('select count(*) as n from t')).toEqual([{ n: round + 1 }]);
      await c.all('COMMIT;');
    }
    await c.all('BEGIN;');
    await c.run('insert into t (id) values (?)', [99]);
    await c.all('ROLLBACK;');
    expect(await c.all('select id from t order by id')).toEqual([{ id: 0 }, { id: 1 }, { id: 2 }]);
    expect(c.prepared.filter((sql) => sql === 'BEGIN;')).toHaveLength(1);
    expect(c.prepared.filter((sql) => sql === 'COMMIT;')).toHaveLength(1);
  });

  it('fails every call on a text that does not prepare, and prepares it again once it can', async () => {
    const failures = await Promise.all(
      [1, 2, 3].map(() =>
        c.all('select * from later').then(
          () => undefined,
          (error: Error) => error.message,
        ),
      ),
    );
    expect(failures).toEqual(Array(3).fill('SQLITE_ERROR: no such table: later'));
    await c.run('create table later (x integer)');
    await c.run('insert into later (x) values (?)', [5]);
    expect(await c.all('select * from later')).toEqual([{ x: 5 }]);
  });

  it('reports a failed run to its caller and runs the statement again after it', async () => {
    await c.run('create table u (id integer primary key)');
    await c.run('insert into u (id) values (?)', [1]);
    await expect(c.run('insert into u (id) values (?)', [1])).rejects.toThrow(/UNIQUE constraint failed/);
    await expect(c.run('insert into u (id) values (?)', [2])).resolves.toEqual({ changes: 1, lastID: 2 });
  });

  it(`keeps at most ${KEPT_STATEMENTS} statements, and closes with every one finalized`, async () => {
    const texts = Array.from({ length: KEPT_STATEMENTS + 40 }, (_, i) => `select ${i} as n`);
    for (const text of texts) await c.all(text);
    // The oldest were finalized to make room: asked again, they prepare again and still answer.
    expect(await c.all(texts[0])).toEqual([{ n: 0 }]);
    expect(await c.all(texts[texts.length - 1])).toEqual([{ n: texts.length - 1 }]);
    expect(c.prepared.filter((sql) => sql === texts[0])).toHaveLength(2);
    expect(c.prepared.filter((sql) => sql === texts[texts.length - 1])).toHaveLength(1);
    await expect(c.close()).resolves.toBeUndefined();
  });
});
