import { DuckDBInstance } from '@duckdb/node-api';
import { plainValue } from '../../src/modules/datasets/readonly-database';

export const TEST_BUILD = { memoryMb: 256, tempDir: '/tmp/decision-service-test-duckdb' };

/** Runs SQL on a dataset's DuckDB file, read-only, and returns rows as query answers carry their values. */
export async function readDatasetFile(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    const names = reader.columnNames();
    return reader
      .getRows()
      .map((values) => Object.fromEntries(names.map((n, i) => [n, plainValue(values[i])])));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Each column's DuckDB type in the dataset file's `rows` table. */
export async function datasetColumnTypes(path: string): Promise<Record<string, string>> {
  const rows = await readDatasetFile(
    path,
    "select column_name as name, data_type as type from duckdb_columns() where table_name = 'rows' order by column_index",
  );
  return Object.fromEntries(rows.map((r) => [String(r.name), String(r.type)]));
}
