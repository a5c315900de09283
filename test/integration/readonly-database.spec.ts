import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openQueryInstance, ReadOnlyDatabase } from '../../src/modules/datasets/readonly-database';
import { rejection } from '../support/rejection';

// Statements are kept prepared per connection (readonly-database.ts): the same text must answer for its own values
// every time, and a connection whose statement was interrupted must not lend its statements to the next query.
describe('a dataset version read through kept statements', () => {
  let dir: string;
  let instance: DuckDBInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readonly-database-'));
    const build = await DuckDBInstance.create(join(dir, 'v.duckdb'));
    const connection = await build.connect();
    await connection.run('create table rows as select range + 1 as _row, range % 7 as k from range(70000)');
    connection.closeSync();
    build.closeSync();
    instance = await openQueryInstance({ memoryMb: 128, threads: 2, tempDir: join(dir, 'tmp') });
    const control = await instance.connect();
    await control.run(`attach '${join(dir, 'v.duckdb')}' as v (read_only)`);
    control.closeSync();
  });

  afterAll(() => {
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = 'select count(*) as n, min(_row) as first from rows where k = ?';

  it('answers the same text for each call’s own values, in turn and at once', async () => {
    const database = new ReadOnlyDatabase(instance, 'v', 10_000, new Set(['_row', 'k']), new Set());
    try {
      for (const k of [3, 0, 6, 3]) {
        expect(await database.all(count, [k])).toEqual([{ n: 10_000, first: k + 1 }]);
      }
      const together = await Promise.all([1, 2, 4, 5].map((k) => database.all(count, [k])));
      expect(together.map(([row]) => row.first)).toEqual([2, 3, 5, 6]);
      const [firsts] = await database.columns('select _row from rows where k = ? order by _row limit 3', [6]);
      expect([...firsts]).toEqual([7, 14, 21]);
    } finally {
      database.close();
    }
  });

  it('answers on a fresh connection after a statement it interrupted', async () => {
    const database = new ReadOnlyDatabase(instance, 'v', 300, new Set(), new Set());
    try {
      const endless =
        'with recursive n(x) as (select ? union all select x + 1 from n) select count(*) from n';
      expect((await rejection(database.all(endless, [1]))).code).toBe('query_timeout');
      expect(await database.all(count, [2])).toEqual([{ n: 10_000, first: 3 }]);
      expect((await rejection(database.all(endless, [2]))).code).toBe('query_timeout');
    } finally {
      database.close();
    }
  });
});
