import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { readDatasetFile, TEST_BUILD } from '../support/dataset-files';
import ExcelJS from 'exceljs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { createClient } from 'redis';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { normalizeConfig } from '../../src/modules/connectors/connector-types';
import { ConnectorDriver, DriverContext, RowSelection } from '../../src/modules/connectors/connector-driver';
import { RowBatch } from '../../src/modules/connectors/connectors.types';
import { importAreaFor } from '../../src/modules/connectors/local-path';
import { fileDriver } from '../../src/modules/connectors/drivers/file';
import { mysqlDriver } from '../../src/modules/connectors/drivers/mysql';
import { postgresDriver } from '../../src/modules/connectors/drivers/postgres';
import { redisDriver } from '../../src/modules/connectors/drivers/redis';
import { restDriver } from '../../src/modules/connectors/drivers/rest';
import { sqliteDriver } from '../../src/modules/connectors/drivers/sqlite';
import { presentValue } from '../../src/modules/datasets/column-profile';
import { DatasetFileWriter } from '../../src/modules/datasets/dataset-file-writer';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { QueryService } from '../../src/modules/query/query.service';
import { startTestApp, TestApp } from '../support/test-app';
import { GuardHarness, startGuard } from '../support/egress-fixtures';
import { TestEgressGuard } from '../support/test-egress-guard';
import { ingestRows } from '../factories/datasets';
import { parseLimits } from '../factories/parse-limits';

/**
 * The type-fidelity matrix (docs/datasets.md, "What each source's types become"): one column per source type, read
 * through the real driver into a real dataset file, and every cell's declared type and stored value checked. The
 * same expectations hold in every host time zone (.ci/run runs this file under four).
 */

const suffix = `${process.pid}_${Date.now()}`;
const scratch = mkdtempSync(join(tmpdir(), 'type-matrix-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Cell = [type: string, value: unknown];

function context(rules: string[], importDir = '/nonexistent'): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard(rules),
    imports: importAreaFor(importDir, 'org_1', true, []),
    scratchDir: scratch,
    batchSize: 100,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

let files = 0;

/**
 * The dataset a driver's rows make: per column its declared type and the value of each row, as answered. A column of
 * numbers kept as text is declared `string` with its exact_numeric marker: `string/integer`, `string/decimal`.
 */
async function ingest<C>(
  driver: ConnectorDriver<C>,
  config: C,
  selection: RowSelection,
  ctx: DriverContext,
): Promise<Record<string, Cell[]>> {
  const path = join(scratch, `d${++files}.duckdb`);
  const writer = await DatasetFileWriter.create(path, TEST_BUILD);
  const batches: AsyncIterable<RowBatch> = driver.readTables
    ? driver.readTables(config, selection, ctx)
    : driver.readRows(config, selection, ctx);
  for await (const batch of batches) await writer.addBatch(batch);
  const written = await writer.finish();
  const rows = (await readDatasetFile(path, 'select * from rows order by _row')) as Record<
    string,
    string | number | null
  >[];
  return Object.fromEntries(
    written.columns.map((column) => [
      column.name,
      rows.map((row): Cell => [
        column.exactNumeric ? `${column.type}/${column.exactNumeric}` : column.type,
        presentValue(row[column.name], column.type),
      ]),
    ]),
  );
}

/** Row 1 of each column, and row 2 (NULL in every source that has NULL). */
function firstRow(dataset: Record<string, Cell[]>): Record<string, Cell> {
  return Object.fromEntries(Object.entries(dataset).map(([name, cells]) => [name, cells[0]]));
}

describe('PostgreSQL (pg) types', () => {
  const table = `type_matrix_pg_${suffix}`;
  const admin = () => new Client({ host: '127.0.0.1', user: 'postgres', database: 'test' });
  let dataset: Record<string, Cell[]>;

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    try {
      await client.query(`create table ${table} (
        ord int, d date, ts timestamp, ts_dst timestamptz, ts_chatham timestamptz, t time, tz_t timetz,
        num numeric(38,10), price numeric(12,2), big bigint, small bigint, flag boolean, id uuid, doc jsonb,
        bin bytea, empty text, nan float8, inf float8, ninf float8, real float8, emoji text, days date[],
        digits text, day_text varchar(10), flag_text char(4))`);
      // The session zone of the insert is not the reader's: timestamptz values keep their instant.
      await client.query(`set time zone 'Asia/Kolkata'`);
      await client.query(
        `insert into ${table} values (1, '2026-11-02', '2026-11-02 10:00:00.123456',
          '2026-11-01 01:30:00-04', '2026-11-02 00:30:00+13:45', '10:30:00', '10:30:00+05:30',
          99999999999999.999999, 1234.50, 9007199254740993, 42, true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          '{"n": 9007199254740993}', '\\x00ff', '', 'NaN', 'Infinity', '-Infinity', 1.5, '😀 𝄞',
          '{2026-11-02,2026-11-03}', '123', '2026-01-02', 'true'),
          (2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
          null, null, null, null, null, null, null, null)`,
      );
    } finally {
      await client.end();
    }
    const config = normalizeConfig(
      { type: 'postgres' },
      { host: '127.0.0.1', database: 'test', user: 'postgres' },
    ).values as never;
    dataset = await ingest(
      postgresDriver,
      config,
      { query: `select * from ${table} order by ord` },
      context(['127.0.0.1:5432']),
    );
  });

  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`drop table if exists ${table}`);
    await client.end();
  });

  it('declares and stores every type as documented', () => {
    expect(firstRow(dataset)).toEqual({
      ord: ['integer', 1],
      d: ['date', '2026-11-02'],
      ts: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      ts_dst: ['timestamp', '2026-11-01T05:30:00.000Z'],
      ts_chatham: ['timestamp', '2026-11-01T10:45:00.000Z'],
      t: ['string', '10:30:00'],
      tz_t: ['string', '10:30:00+05:30'],
      num: ['string/decimal', '99999999999999.9999990000'],
      price: ['number', 1234.5],
      big: ['string/integer', '9007199254740993'],
      small: ['integer', 42],
      flag: ['boolean', true],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      doc: ['string', '{"n": 9007199254740993}'],
      bin: ['string', 'AP8='],
      empty: ['string', ''],
      nan: ['string', 'NaN'],
      inf: ['string', 'Infinity'],
      ninf: ['string', '-Infinity'],
      real: ['number', 1.5],
      emoji: ['string', '😀 𝄞'],
      days: ['string', '["2026-11-02","2026-11-03"]'],
      // A declared text column stays text, whatever its values look like.
      digits: ['string', '123'],
      day_text: ['string', '2026-01-02'],
      flag_text: ['string', 'true'],
    });
  });

  describe('queried by date', () => {
    const orders = `type_matrix_pg_orders_${suffix}`;
    let t: TestApp;
    let datasetId: string;

    beforeAll(async () => {
      const client = admin();
      await client.connect();
      try {
        await client.query(`create table ${orders} (order_date date, placed_at timestamptz)`);
        await client.query(`insert into ${orders} values
          ('2026-11-01', '2026-11-01 23:30:00-05'), ('2026-11-02', '2026-11-02 00:30:00+05:30'),
          ('2026-11-02', '2026-11-02 23:59:59.999999+00'), ('2026-11-03', '2026-11-03 00:00:00+00')`);
      } finally {
        await client.end();
      }
      t = await startTestApp();
      const config = normalizeConfig(
        { type: 'postgres' },
        { host: '127.0.0.1', database: 'test', user: 'postgres' },
      ).values as never;
      const rows = postgresDriver.readRows(config, { table: orders }, context(['127.0.0.1:5432']));
      datasetId = (await ingestRows(t.app.get(DatasetsService), 'org_a', `orders_${suffix}`, rows)).id;
    });

    afterAll(async () => {
      await t?.close();
      const client = admin();
      await client.connect();
      await client.query(`drop table if exists ${orders}`);
      await client.end();
    });

    const ask = (request: Record<string, unknown>) =>
      t.app.get(QueryService).query({ orgId: 'org_a' }, { dataset_id: datasetId, ...request });

    it('"on <day>" finds the rows of that day of a date column', async () => {
      const answer = await ask({ query: 'count of rows where order_date on 2026-11-02' });
      expect(answer.rows).toEqual([{ count_rows: 2 }]);
      expect(answer.columns).toEqual([expect.objectContaining({ name: 'count_rows' })]);
    });

    it('a typed where on a timestamp column honours the offset of its value', async () => {
      const answer = await ask({
        select: ['placed_at'],
        where: [
          { column: 'placed_at', op: 'gte', value: '2026-11-02T00:00:00+00:00' },
          { column: 'placed_at', op: 'lt', value: '2026-11-03T05:30:00+05:30' },
        ],
      });
      expect(answer.rows).toEqual([
        { placed_at: '2026-11-02T04:30:00.000Z' },
        { placed_at: '2026-11-02T23:59:59.999999Z' },
      ]);
    });
  });

  it('stores NULL as null in every column', () => {
    const nulls = Object.entries(dataset)
      .filter(([name]) => name !== 'ord')
      .map(([name, cells]) => [name, cells[1][1]]);
    expect(nulls.filter(([, value]) => value !== null)).toEqual([]);
  });
});

describe('MariaDB (mysql2) types', () => {
  const table = `type_matrix_my_${suffix}`;
  const admin = () => mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
  let dataset: Record<string, Cell[]>;

  beforeAll(async () => {
    const connection = await admin();
    try {
      await connection.query(`create table ${table} (
        ord int, d date, dt datetime(6), ts timestamp(3) null, t time, num decimal(38,10), price decimal(12,2),
        big bigint, small bigint, flag boolean, id uuid, doc json, bin varbinary(8), bits bit(8), empty text,
        real_value double, emoji text, digits varchar(10), day_text text, flag_text char(4)) character set utf8mb4`);
      // TIMESTAMP is kept in UTC and shown in the session's zone: written at +05:30, read at UTC.
      await connection.query(`set time_zone = '+05:30'`);
      await connection.query(
        `insert into ${table} values (1, '2026-11-02', '2026-11-02 10:00:00.123456', '2026-11-02 01:00:00.250',
          '10:30:00', 99999999999999.999999, 1234.50, 9007199254740993, 42, true,
          'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"n": 9007199254740993}', x'00ff', b'00000101', '', 1.5,
          '😀 𝄞', '123', '2026-01-02', 'true'),
          (2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
          null, null)`,
      );
    } finally {
      await connection.end();
    }
    const config = normalizeConfig({ type: 'mysql' }, { host: '127.0.0.1', database: 'test', user: 'root' })
      .values as never;
    dataset = await ingest(
      mysqlDriver,
      config,
      { query: `select * from ${table} order by ord` },
      context(['127.0.0.1:3306']),
    );
  });

  afterAll(async () => {
    const connection = await admin();
    await connection.query(`drop table if exists ${table}`);
    await connection.end();
  });

  it('declares and stores every type as documented', () => {
    expect(firstRow(dataset)).toEqual({
      ord: ['integer', 1],
      d: ['date', '2026-11-02'],
      dt: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      ts: ['timestamp', '2026-11-01T19:30:00.250Z'],
      t: ['string', '10:30:00'],
      num: ['string/decimal', '99999999999999.9999990000'],
      price: ['number', 1234.5],
      big: ['string/integer', '9007199254740993'],
      small: ['integer', 42],
      flag: ['integer', 1],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      doc: ['string', '{"n": 9007199254740993}'],
      bin: ['string', 'AP8='],
      bits: ['string', 'BQ=='],
      empty: ['string', ''],
      real_value: ['number', 1.5],
      emoji: ['string', '😀 𝄞'],
      digits: ['string', '123'],
      day_text: ['string', '2026-01-02'],
      flag_text: ['string', 'true'],
    });
  });

  it('stores NULL as null in every column', () => {
    const nulls = Object.entries(dataset)
      .filter(([name]) => name !== 'ord')
      .map(([name, cells]) => [name, cells[1][1]]);
    expect(nulls.filter(([, value]) => value !== null)).toEqual([]);
  });
});

describe('SQLite connector types', () => {
  let dataset: Record<string, Cell[]>;

  beforeAll(async () => {
    const dir = mkdtempSync(join(scratch, 'sqlite-'));
    const db = new DatabaseSync(join(dir, 'matrix.db'));
    db.exec(`create table matrix (ord integer, d date, ts datetime, ts_offset datetime, t time, num text,
      price numeric, big integer, flag boolean, id text, doc json, bin blob, empty text, nan real, inf real,
      ninf real, real_value real, emoji text, digits text, day_text varchar(10), free)`);
    db.exec(`insert into matrix values (1, '2026-11-02', '2026-11-02 10:00:00.123456', '2026-11-02T01:00:00+05:30',
      '10:30:00', '99999999999999.9999990000', 1234.50, 9007199254740993, true,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"n": 9007199254740993}', x'00ff', '', 0.0 / 0, 1e999, -1e999, 1.5,
      '😀 𝄞', '123', '2026-01-02', '2026-01-02'), (2, null, null, null, null, null, null, null, null, null, null, null,
      null, null, null, null, null, null, null, null, null)`);
    db.close();
    const config = normalizeConfig({ type: 'sqlite' }, { path: 'matrix.db' }).values as never;
    dataset = await ingest(sqliteDriver, config, { table: 'matrix' }, context([], dir));
  });

  it('declares and stores every type as documented', () => {
    expect(firstRow(dataset)).toEqual({
      ord: ['integer', 1],
      d: ['date', '2026-11-02'],
      ts: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      ts_offset: ['timestamp', '2026-11-01T19:30:00.000Z'],
      t: ['string', '10:30:00'],
      num: ['string', '99999999999999.9999990000'],
      price: ['number', 1234.5],
      big: ['string/integer', '9007199254740993'],
      flag: ['integer', 1],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      doc: ['string', '{"n": 9007199254740993}'],
      bin: ['string', 'AP8='],
      empty: ['string', ''],
      // SQLite stores NaN as NULL itself.
      nan: ['string', null],
      inf: ['string', 'Infinity'],
      ninf: ['string', '-Infinity'],
      real_value: ['number', 1.5],
      emoji: ['string', '😀 𝄞'],
      // Text affinity (a declared type naming CHAR, CLOB or TEXT) keeps text; an untyped column is read by shape.
      digits: ['string', '123'],
      day_text: ['string', '2026-01-02'],
      free: ['date', '2026-01-02'],
    });
  });

  it('stores NULL as null in every column', () => {
    const nulls = Object.entries(dataset)
      .filter(([name]) => name !== 'ord')
      .map(([name, cells]) => [name, cells[1][1]]);
    expect(nulls.filter(([, value]) => value !== null)).toEqual([]);
  });
});

/** What a text source (CSV, JSON, REST, Redis) holds: the matrix's values written as text or JSON. */
const JSON_ROW = `{"d": "2026-11-02", "ts": "2026-11-02 10:00:00.123456", "ts_dst": "2026-11-01T01:30:00-04:00",
  "ts_chatham": "2026-11-02T00:30:00+13:45", "t": "10:30:00", "num": 99999999999999.999999, "price": 1234.50,
  "big": 9007199254740993, "small": 42, "flag": true, "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
  "doc": {"n": 1}, "empty": "", "nan": "NaN", "emoji": "😀 𝄞", "huge": 1e999}`;
const JSON_NULLS = `{"d": null, "ts": null, "ts_dst": null, "ts_chatham": null, "t": null, "num": null, "price": null,
  "big": null, "small": null, "flag": null, "id": null, "doc.n": null, "empty": null, "nan": null, "emoji": null,
  "huge": null}`;

/** JSON, JSON Lines, REST and Redis JSON values all read numbers through the same exact parse. */
const JSON_CELLS: Record<string, Cell> = {
  d: ['date', '2026-11-02'],
  ts: ['timestamp', '2026-11-02T10:00:00.123456Z'],
  ts_dst: ['timestamp', '2026-11-01T05:30:00.000Z'],
  ts_chatham: ['timestamp', '2026-11-01T10:45:00.000Z'],
  t: ['string', '10:30:00'],
  num: ['string/decimal', '99999999999999.999999'],
  price: ['number', 1234.5],
  big: ['string/integer', '9007199254740993'],
  small: ['integer', 42],
  flag: ['boolean', true],
  id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
  'doc.n': ['integer', 1],
  empty: ['string', ''],
  nan: ['string', 'NaN'],
  emoji: ['string', '😀 𝄞'],
  huge: ['string/decimal', '1e999'],
};

function nullsOf(dataset: Record<string, Cell[]>): string[] {
  return Object.entries(dataset)
    .filter(([name, cells]) => !name.startsWith('_') && cells[1][1] !== null)
    .map(([name]) => name);
}

describe('file types', () => {
  const dir = mkdtempSync(join(scratch, 'files-'));
  const read = (config: Record<string, unknown>) =>
    ingest(fileDriver, normalizeConfig({ type: 'file' }, config).values as never, {}, context([], dir));

  it('CSV: every value is text, read by its shape; an empty field is null', async () => {
    const csv = [
      'd,ts,ts_dst,ts_chatham,t,num,price,big,small,flag,id,empty,nan,inf,emoji',
      '2026-11-02,2026-11-02 10:00:00.123456,2026-11-01T01:30:00-04:00,2026-11-02T00:30:00+13:45,10:30:00,' +
        '99999999999999.999999,1234.50,9007199254740993,42,true,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,"",NaN,' +
        'Infinity,😀 𝄞',
    ].join('\n');
    const dataset = await read({ file_type: 'csv', content: csv });
    expect(firstRow(dataset)).toEqual({
      d: ['date', '2026-11-02'],
      ts: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      ts_dst: ['timestamp', '2026-11-01T05:30:00.000Z'],
      ts_chatham: ['timestamp', '2026-11-01T10:45:00.000Z'],
      t: ['string', '10:30:00'],
      num: ['string/decimal', '99999999999999.999999'],
      price: ['number', 1234.5],
      big: ['string/integer', '9007199254740993'],
      small: ['integer', 42],
      flag: ['boolean', true],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      empty: ['string', null],
      nan: ['string', 'NaN'],
      inf: ['string', 'Infinity'],
      emoji: ['string', '😀 𝄞'],
    });
  });

  it('JSON: numbers a double cannot hold keep their digits; "" is not null', async () => {
    const dataset = await read({ file_type: 'json', content: `[${JSON_ROW}, ${JSON_NULLS}]` });
    expect(firstRow(dataset)).toEqual(JSON_CELLS);
    expect(nullsOf(dataset)).toEqual([]);
  });

  it('JSON Lines: the same', async () => {
    const lines = `${JSON_ROW.replace(/\n/g, '')}\n${JSON_NULLS.replace(/\n/g, '')}\n`;
    const dataset = await read({ file_type: 'json', content: lines });
    expect(firstRow(dataset)).toEqual(JSON_CELLS);
  });

  it('Parquet: DATE stays a date, micro- and nanosecond timestamps and wide DECIMALs keep their digits', async () => {
    const none = <T>(value: T): (T | null)[] => [value, null];
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'd', data: none(new Date(Date.UTC(2026, 10, 2))) },
        { name: 'ts_millis', data: none(new Date(Date.UTC(2026, 10, 2, 10, 0, 0, 123))) },
        { name: 'ts_micros', data: none(1793613600123456n) },
        { name: 'ts_nanos', data: none(1793613600123456789n) },
        { name: 'num', data: none(999999999999999999999999n) },
        { name: 'price', data: none(123450n) },
        { name: 'big', data: none(9007199254740993n) },
        { name: 'flag', data: none(true) },
        { name: 'id', data: none('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') },
        { name: 'doc', data: none({ n: 1 }) },
        { name: 'bin', data: none(new Uint8Array([0, 255])) },
        { name: 'empty', data: none('') },
        { name: 'nan', data: none(Number.NaN) },
        { name: 'inf', data: none(Number.POSITIVE_INFINITY) },
        { name: 'emoji', data: none('😀 𝄞') },
      ],
      schema: [
        { name: 'root', num_children: 15 },
        { name: 'd', type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' },
        { name: 'ts_millis', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type: 'OPTIONAL' },
        { name: 'ts_micros', type: 'INT64', converted_type: 'TIMESTAMP_MICROS', repetition_type: 'OPTIONAL' },
        {
          name: 'ts_nanos',
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' },
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'num',
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: 16,
          converted_type: 'DECIMAL',
          precision: 38,
          scale: 10,
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'price',
          type: 'INT64',
          converted_type: 'DECIMAL',
          precision: 12,
          scale: 2,
          repetition_type: 'OPTIONAL',
        },
        { name: 'big', type: 'INT64', repetition_type: 'OPTIONAL' },
        { name: 'flag', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
        { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'doc', type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' },
        { name: 'bin', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
        { name: 'empty', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'nan', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
        { name: 'inf', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
        { name: 'emoji', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      ],
    });
    writeFileSync(join(dir, 'matrix.parquet'), Buffer.from(bytes));
    const dataset = await read({ file_type: 'parquet', file_path: 'matrix.parquet' });
    expect(firstRow(dataset)).toEqual({
      d: ['date', '2026-11-02'],
      ts_millis: ['timestamp', '2026-11-02T10:00:00.123Z'],
      ts_micros: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      ts_nanos: ['timestamp', '2026-11-02T10:00:00.123456789Z'],
      num: ['string/decimal', '99999999999999.9999999999'],
      price: ['number', 1234.5],
      big: ['string/integer', '9007199254740993'],
      flag: ['boolean', true],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      'doc.n': ['integer', 1],
      // A JSON object is flattened to dotted columns; the null of row 2 makes a column of its own.
      doc: ['string', null],
      bin: ['string', 'AP8='],
      empty: ['string', ''],
      nan: ['string', 'NaN'],
      inf: ['string', 'Infinity'],
      emoji: ['string', '😀 𝄞'],
    });
    expect(nullsOf(dataset)).toEqual([]);
  });

  it('xlsx: a date cell at midnight is a timestamp in UTC, numbers are doubles', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('data');
    sheet.addRow(['d', 'ts', 'text_date', 'price', 'big_text', 'flag', 'empty', 'emoji']);
    sheet.addRow([
      new Date(Date.UTC(2026, 10, 2)),
      new Date(Date.UTC(2026, 10, 2, 10, 0, 0, 123)),
      '2026-11-02',
      1234.5,
      '9007199254740993',
      true,
      '',
      '😀 𝄞',
    ]);
    sheet.addRow([null, null, null, null, null, null, null, null]);
    writeFileSync(join(dir, 'matrix.xlsx'), Buffer.from(await book.xlsx.writeBuffer()));
    const dataset = await read({ file_type: 'excel', file_path: 'matrix.xlsx' });
    expect(firstRow(dataset)).toEqual({
      d: ['timestamp', '2026-11-02T00:00:00.000Z'],
      ts: ['timestamp', '2026-11-02T10:00:00.123Z'],
      text_date: ['date', '2026-11-02'],
      price: ['number', 1234.5],
      big_text: ['string/integer', '9007199254740993'],
      flag: ['boolean', true],
      empty: ['string', ''],
      emoji: ['string', '😀 𝄞'],
    });
  });
});

describe('REST (JSON over a loopback server)', () => {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(`[${JSON_ROW}, ${JSON_NULLS}]`);
  });
  let guard: GuardHarness;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    guard = await startGuard(mkdtempSync(join(scratch, 'guard-')), [`127.0.0.1:${port}`]);
  });
  afterAll(async () => {
    await guard.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('declares and stores every type as JSON does', async () => {
    const { port } = server.address() as AddressInfo;
    const config = normalizeConfig({ type: 'rest' }, { url: `http://127.0.0.1:${port}/rows` })
      .values as never;
    const dataset = await ingest(restDriver, config, {}, { ...context([]), egress: guard.guard });
    expect(firstRow(dataset)).toEqual(JSON_CELLS);
    expect(nullsOf(dataset)).toEqual([]);
  });
});

describe('Redis', () => {
  const db = 13;
  const prefix = `type_matrix_${suffix}`;
  const admin = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: db });

  beforeAll(async () => {
    await admin.connect();
    await admin.set(`${prefix}:1`, JSON_ROW);
    await admin.set(`${prefix}:2`, JSON_NULLS);
    await admin.hSet(`${prefix}:h`, { d: '2026-11-02', big: '9007199254740993', empty: '' });
  });
  afterAll(async () => {
    await admin.del([`${prefix}:1`, `${prefix}:2`, `${prefix}:h`]);
    await admin.close();
  });

  const read = (pattern: string) =>
    ingest(
      redisDriver,
      normalizeConfig({ type: 'redis' }, { host: '127.0.0.1', db }).values as never,
      { pattern },
      context(['127.0.0.1:6379']),
    );

  it('a JSON string value: as JSON', async () => {
    const dataset = await read(`${prefix}:[12]`);
    const byKey = dataset._key.findIndex(([, key]) => key === `${prefix}:1`);
    const row = Object.fromEntries(
      Object.entries(dataset)
        .filter(([name]) => name !== '_key')
        .map(([name, cells]) => [name, cells[byKey]]),
    );
    expect(row).toEqual(JSON_CELLS);
  });

  it('a hash: every field is text, read by its shape; an empty field is an empty string', async () => {
    const dataset = await read(`${prefix}:h`);
    expect(firstRow(dataset)).toEqual({
      _key: ['string', `${prefix}:h`],
      d: ['date', '2026-11-02'],
      big: ['string/integer', '9007199254740993'],
      empty: ['string', ''],
    });
  });
});
