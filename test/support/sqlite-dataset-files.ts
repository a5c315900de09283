import sqlite3 from 'sqlite3';

/**
 * Writes a dataset version in the format of the writer before DuckDB (one SQLite table `data`, `_row` as its
 * integer primary key, untyped columns holding integers, reals, 0/1 booleans and text), for the upgrade tests.
 */
export async function writePreviousFormat(
  path: string,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(opened)));
  });
  const run = (sql: string, params: unknown[] = []): Promise<void> =>
    new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
  const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
  await run(`create table data ("_row" integer primary key${columns.map((c) => `, ${quote(c)}`).join('')})`);
  await run('begin');
  const placeholders = ['?', ...columns.map(() => '?')].join(', ');
  for (const row of rows) {
    await run(`insert into data values (${placeholders})`, [row._row, ...columns.map((c) => row[c] ?? null)]);
  }
  await run('commit');
  await new Promise<void>((resolve) => db.close(() => resolve()));
}
