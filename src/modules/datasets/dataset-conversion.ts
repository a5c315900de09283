import { createHash, Hash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import sqlite3 from 'sqlite3';
import type { AppLogger } from '../../common/logging';
import { ColumnSchema } from './column-profile';
import {
  DatasetBuildOptions,
  firstRow,
  openBuildInstance,
  publishBuild,
  removeBuildFiles,
  syncFile,
  writeLayoutMeta,
} from './dataset-build-files';
import { DatasetRecord } from './dataset.entity';
import { DatasetRepository } from './dataset.repository';
import { answeredAs, DATASET_FILE_EXTENSION, isStoredAsText, storeColumn } from './dataset-store-layout';
import { parseSchema } from './datasets.dto';
import { PlainValue, plainValue } from './readonly-database';
import { DATA_TABLE, quoteIdentifier, ROW_COLUMN } from './sql-identifiers';

export const SQLITE_FILE_EXTENSION = '.sqlite';
const SQLITE_TABLE = 'data';
const PAGE_ROWS = 10_000;

export interface ConversionOptions {
  readonly datasetsDir: string;
  readonly repository: DatasetRepository;
  readonly logger: AppLogger;
  readonly build: DatasetBuildOptions;
}

interface Fingerprint {
  rows: number;
  readonly digests: Hash[];
}

function fingerprintOf(width: number): Fingerprint {
  return { rows: 0, digests: Array.from({ length: width }, () => createHash('sha256')) };
}

function addToFingerprint(print: Fingerprint, values: readonly PlainValue[]): void {
  print.rows++;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    print.digests[i].update(value === null ? '\u0000null\u0000' : `${value}\u0000`);
  }
}

function digestsOf(print: Fingerprint): string[] {
  return print.digests.map((digest) => digest.digest('hex'));
}

function sqliteValue(value: unknown, column: ColumnSchema): PlainValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw new Error(`column ${column.name} holds a ${typeof value}`);
  }
  if (isStoredAsText(column.type)) return `${value}`;
  if (column.type === 'boolean') return value ? 1 : 0;
  return value;
}

/** One version at a time; its old file is removed only after row count and column digests match (docs/datasets.md). */
export async function convertSqliteVersions(options: ConversionOptions): Promise<void> {
  const pending = await options.repository.withFileSuffix(SQLITE_FILE_EXTENSION);
  if (pending.length === 0) return;
  const { logger } = options;
  logger.info(
    { event: 'dataset_conversion_started', versions: pending.length },
    'converting dataset files to DuckDB',
  );
  let converted = 0;
  let failed = 0;
  for (const [index, record] of pending.entries()) {
    const started = process.hrtime.bigint();
    try {
      let rows = 0;
      const ran = await options.repository.whileHoldingFileLease(record.id, async () => {
        rows = await convertVersion(record, options);
      });
      if (!ran) continue;
      converted++;
      logger.info(
        {
          event: 'dataset_converted',
          dataset_id: record.id,
          rows,
          done: index + 1,
          of: pending.length,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'dataset version converted to DuckDB',
      );
    } catch (error) {
      failed++;
      logger.error(
        {
          event: 'dataset_conversion_failed',
          dataset_id: record.id,
          error: error instanceof Error ? error.message : String(error),
        },
        'dataset version kept in its SQLite file',
      );
    }
  }
  logger.info({ event: 'dataset_conversion_finished', converted, failed }, 'dataset conversion finished');
}

async function convertVersion(record: DatasetRecord, options: ConversionOptions): Promise<number> {
  const oldPath = join(options.datasetsDir, record.fileName);
  const newName = `${record.id}${DATASET_FILE_EXTENSION}`;
  const finalPath = join(options.datasetsDir, newName);
  const partialPath = `${finalPath}.partial`;
  if (!existsSync(oldPath)) {
    // Another replica converted it between our listing and our lease.
    if (existsSync(finalPath)) await options.repository.replaceFileName(record.id, record.fileName, newName);
    return 0;
  }
  const columns = parseSchema(record).columns;
  const instance = await openBuildInstance(partialPath, options.build);
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    const source = await openSqlite(oldPath);
    let before: Fingerprint;
    try {
      before = await copyRows(source, connection, columns);
    } finally {
      await new Promise<void>((resolve) => source.close(() => resolve()));
    }
    await applyStorageTypes(connection, columns, before.rows);
    const built = connection;
    await writeLayoutMeta((sql) => built.run(sql));
    const after = await fingerprintDuckDb(connection, columns);
    if (after.rows !== before.rows) {
      throw new Error(`row counts differ: ${before.rows} in the SQLite file, ${after.rows} converted`);
    }
    const expected = digestsOf(before);
    const found = digestsOf(after);
    const differing = columns.filter((_, i) => expected[i] !== found[i]).map((c) => c.name);
    if (differing.length > 0) throw new Error(`column checksums differ: ${differing.join(', ')}`);
    await connection.run('checkpoint');
    connection.closeSync();
    connection = undefined;
    instance.closeSync();
    publishBuild(partialPath, finalPath);
    syncFile(options.datasetsDir);
    await options.repository.replaceFileName(record.id, record.fileName, newName);
    rmSync(oldPath, { force: true });
    return before.rows;
  } catch (error) {
    connection?.closeSync();
    try {
      instance.closeSync();
    } catch {
      // Closing a failed build: the partial file is removed either way.
    }
    removeBuildFiles(partialPath);
    throw error;
  }
}

/** A version whose conversion failed stays readable from its old file. */
export async function attachPreviousFormat(
  instance: DuckDBInstance,
  id: string,
  file: string,
  columns: readonly ColumnSchema[],
): Promise<void> {
  const connection = await instance.connect();
  try {
    await connection.run(`attach if not exists ':memory:' as ${quoteIdentifier(id)}`);
    await connection.run(`use ${quoteIdentifier(id)}`);
    await connection.run(`drop table if exists ${DATA_TABLE}`);
    const source = await openSqlite(file);
    let copied: Fingerprint;
    try {
      copied = await copyRows(source, connection, columns);
    } finally {
      await new Promise<void>((resolve) => source.close(() => resolve()));
    }
    await applyStorageTypes(connection, columns, copied.rows);
  } catch (error) {
    await connection.run(`detach database if exists ${quoteIdentifier(id)}`).catch(() => undefined);
    throw error;
  } finally {
    connection.closeSync();
  }
}

function openSqlite(path: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) =>
      error ? reject(error) : resolve(db),
    );
  });
}

function sqliteAll(db: sqlite3.Database, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    db.all(sql, params, (error, rows) =>
      error ? reject(error) : resolve(rows as Record<string, unknown>[]),
    );
  });
}

function copyTypeOf(column: ColumnSchema): 'bigint' | 'double' | 'varchar' {
  if (column.type === 'integer' || column.type === 'boolean') return 'bigint';
  return column.type === 'number' ? 'double' : 'varchar';
}

async function copyRows(
  source: sqlite3.Database,
  connection: DuckDBConnection,
  columns: readonly ColumnSchema[],
): Promise<Fingerprint> {
  const types = columns.map(copyTypeOf);
  const definitions = columns.map((c, i) => `${quoteIdentifier(c.name)} ${types[i]}`);
  await connection.run(
    `create table ${DATA_TABLE} (${[`${quoteIdentifier(ROW_COLUMN)} bigint not null`, ...definitions].join(', ')})`,
  );
  const select = [ROW_COLUMN, ...columns.map((c) => c.name)].map(quoteIdentifier).join(', ');
  const print = fingerprintOf(columns.length);
  const appender: DuckDBAppender = await connection.createAppender(DATA_TABLE);
  const values = new Array<PlainValue>(columns.length);
  for (let after = 0; ;) {
    const page = await sqliteAll(
      source,
      `select ${select} from ${SQLITE_TABLE} where ${quoteIdentifier(ROW_COLUMN)} > ? order by ${quoteIdentifier(ROW_COLUMN)} limit ?`,
      [after, PAGE_ROWS],
    );
    if (page.length === 0) break;
    for (const row of page) {
      appender.appendBigInt(BigInt(row[ROW_COLUMN] as number));
      for (let i = 0; i < columns.length; i++) {
        const value = sqliteValue(row[columns[i].name], columns[i]);
        values[i] = value;
        if (value === null) appender.appendNull();
        else if (types[i] === 'varchar') appender.appendVarchar(value as string);
        else if (types[i] === 'double') appender.appendDouble(value as number);
        else appender.appendBigInt(BigInt(value));
      }
      appender.endRow();
      addToFingerprint(print, values);
    }
    after = page[page.length - 1][ROW_COLUMN] as number;
  }
  appender.closeSync();
  return print;
}

async function fingerprintDuckDb(
  connection: DuckDBConnection,
  columns: readonly ColumnSchema[],
): Promise<Fingerprint> {
  const print = fingerprintOf(columns.length);
  const select = [
    quoteIdentifier(ROW_COLUMN),
    ...columns.map((c) => answeredAs(c.type, quoteIdentifier(c.name))),
  ].join(', ');
  for (let after = 0; ;) {
    const reader = await connection.runAndReadAll(
      `select ${select} from ${DATA_TABLE} where ${quoteIdentifier(ROW_COLUMN)} > ${after} order by 1 limit ${PAGE_ROWS}`,
    );
    const rows = reader.getRows();
    if (rows.length === 0) break;
    for (const row of rows) addToFingerprint(print, row.slice(1).map(plainValue));
    after = Number(rows[rows.length - 1][0]);
  }
  return print;
}

async function applyStorageTypes(
  connection: DuckDBConnection,
  columns: readonly ColumnSchema[],
  rowCount: number,
): Promise<void> {
  const statements = {
    one: (sql: string) => firstRow(connection, sql),
    run: (sql: string) => connection.run(sql),
  };
  for (const column of columns) await storeColumn(statements, { ...column, empty: false }, rowCount);
}
