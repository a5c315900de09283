import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { PlainCsvFile } from '../connectors/connectors.types';
import { ColumnNamer } from './column-names';
import { DistinctCounter } from './distinct-counter';
import {
  columnSchemaOf,
  ColumnSchema,
  ColumnValue,
  cutText,
  presentValue,
  SampleValues,
} from './column-profile';
import {
  DatasetBuildOptions,
  openBuildInstance,
  removeBuildFiles,
  writeLayoutMeta,
} from './dataset-build-files';
import { duckError, MAX_COLUMNS, publishVersion, WrittenDataset } from './dataset-file-writer';
import { decimalFitsSql, decimalOrDoubleOf, isStoredAsText, storedTypeOf } from './dataset-store-layout';
import { scanPlainCsv } from './csv-scan';
import { DATA_TABLE, quoteIdentifier, quoteString, ROW_COLUMN } from './sql-identifiers';
import {
  ColumnType,
  KIND_BOOLEAN,
  KIND_DATE,
  KIND_INTEGER,
  KIND_NUMBER,
  KIND_STRING,
  typeOfKinds,
} from './value-kinds';

const DIRECT_MASKS: ReadonlySet<number> = new Set([
  0,
  KIND_INTEGER,
  KIND_NUMBER,
  KIND_INTEGER | KIND_NUMBER,
  KIND_DATE,
  KIND_BOOLEAN,
  KIND_STRING,
  KIND_STRING | KIND_DATE,
]);

// A DistinctCounter's count depends only on the set of values, so up to this many it is rebuilt from them.
const COUNTED_DISTINCT_LIMIT = 1 << 18;
const SAMPLE_ROWS = 1000;

interface SourceColumn {
  readonly name: string;
  readonly raw: string;
  readonly kinds: number;
  readonly type: ColumnType;
  /** Its distinct texts, sorted, when every cell is text or a date and they are few enough to code (ScannedColumn). */
  readonly values: readonly string[] | undefined;
}

/** Undefined, with nothing left behind, when the file needs the row-by-row reader (docs/datasets.md). */
export async function buildFromPlainCsv(
  csv: PlainCsvFile,
  finalPath: string,
  options: DatasetBuildOptions,
): Promise<WrittenDataset | undefined> {
  const width = csv.columns.length;
  if (width > csv.limits.maxColumns || width > MAX_COLUMNS || new Set(csv.columns).size !== width)
    return undefined;
  if (csv.columns.some((key) => Buffer.byteLength(key, 'utf8') > csv.limits.maxCellBytes)) return undefined;
  const partialPath = `${finalPath}.partial`;
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let profiler: DuckDBConnection | undefined;
  try {
    const classified = await classify(csv, options);
    if (classified === undefined) return undefined;
    instance = await openBuildInstance(partialPath, options);
    connection = await instance.connect();
    profiler = await instance.connect();
    const schema = await load(connection, profiler, csv, classified.columns, classified.rowCount, options);
    profiler.closeSync();
    profiler = undefined;
    connection.closeSync();
    instance.closeSync();
    connection = undefined;
    instance = undefined;
    return { ...schema, bytes: publishVersion(partialPath, finalPath) };
  } catch (error) {
    throw duckError(error);
  } finally {
    profiler?.closeSync();
    connection?.closeSync();
    instance?.closeSync();
    removeBuildFiles(partialPath);
  }
}

function readCsvSql(csv: PlainCsvFile): string {
  const columns = csv.columns.map((_, i) => `'c${i}': 'VARCHAR'`).join(', ');
  return `read_csv(${quoteString(csv.path)}, delim = ${quoteString(csv.delimiter)}, header = false,
    skip = ${csv.hasHeader ? 1 : 0}, columns = {${columns}}, auto_detect = false, strict_mode = true,
    null_padding = false, new_line = '\\n', encoding = 'utf-8')`;
}

async function rowOf(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJS()[0];
}

async function classify(
  csv: PlainCsvFile,
  options: DatasetBuildOptions,
): Promise<{ columns: SourceColumn[]; rowCount: number } | undefined> {
  const scanned = await scanPlainCsv(csv, options.threads ?? 1);
  if (scanned === undefined) return undefined;
  const { rowCount } = scanned;
  if (rowCount === 0 || rowCount * csv.columns.length > csv.limits.maxCells) return undefined;
  const names = new ColumnNamer();
  const columns: SourceColumn[] = [];
  for (const [i, { kinds, widest, values }] of scanned.columns.entries()) {
    if (!DIRECT_MASKS.has(kinds) || widest > csv.limits.maxCellBytes) return undefined;
    columns.push({
      name: names.nameOf(csv.columns[i]),
      raw: `c${i}`,
      kinds,
      type: typeOfKinds(kinds),
      values,
    });
  }
  return { columns, rowCount };
}

function loadExpression(column: SourceColumn): string {
  switch (column.type) {
    case 'integer':
      return `cast(${column.raw} as bigint)`;
    case 'number':
      return `cast(${column.raw} as double)`;
    case 'boolean':
      return `lower(${column.raw}) = 'true'`;
    case 'string':
    case 'date':
    case 'timestamp':
      return column.raw;
  }
}

/** Distinct text values of a column this many or fewer are cast to its ENUM as the file is read; more, afterwards. */
const INLINE_ENUM_LIMIT = 1 << 12;

/**
 * Writes the table in file order on one thread (parallel writers leave partial row groups a checkpoint rewrites) while
 * a second connection profiles the file. Large ENUMs (slow to cast per row) and DECIMALs are converted afterwards.
 */
async function load(
  connection: DuckDBConnection,
  profiler: DuckDBConnection,
  csv: PlainCsvFile,
  columns: readonly SourceColumn[],
  rowCount: number,
  options: DatasetBuildOptions,
): Promise<Omit<WrittenDataset, 'bytes'>> {
  const values = await valuesOfTextColumns(connection, columns, rowCount);
  const statements = {
    one: (sql: string) => rowOf(connection, sql),
    run: (sql: string) => connection.run(sql),
  };
  const outputs = [`row_number() over () as ${quoteIdentifier(ROW_COLUMN)}`];
  const conversions: string[] = [];
  for (const column of columns) {
    const quoted = quoteIdentifier(column.name);
    const text = values.get(column.raw);
    const loaded = loadExpression(column);
    if (!text) {
      outputs.push(`${loaded} as ${quoted}`);
      continue;
    }
    const { counter } = text;
    const target = await storedTypeOf(
      statements,
      { ...column, empty: false, distinctCount: counter.count() },
      rowCount,
      `(select value as ${quoted} from ${text.table})`,
    );
    const castNow = target !== 'varchar' && counter.count() <= INLINE_ENUM_LIMIT;
    outputs.push(castNow ? `cast(${loaded} as ${target}) as ${quoted}` : `${loaded} as ${quoted}`);
    if (target !== 'varchar' && !castNow) {
      conversions.push(`alter table ${DATA_TABLE} alter ${quoted} type ${target}`);
    }
  }
  await connection.run('set threads = 1');
  const profiled = await bothSettled(
    profileFile(profiler, csv, columns, rowCount, values),
    connection.run(`create table ${DATA_TABLE} as select ${outputs.join(', ')} from ${readCsvSql(csv)}`),
  );
  await connection.run(`set threads = ${options.threads ?? 1}`);
  for (const [name, decimal] of profiled.decimals) {
    conversions.push(`alter table ${DATA_TABLE} alter ${quoteIdentifier(name)} type ${decimal}`);
  }
  // Converting the bench's customers took 1.8–2.5 s once checkpointed, 2.8–4.9 s straight after the write.
  await connection.run('checkpoint');
  for (const conversion of conversions) await connection.run(conversion);
  await writeLayoutMeta((sql) => connection.run(sql));
  await connection.run('checkpoint');
  return { rowCount, columns: profiled.schema };
}

/** The first's value once both have settled: a failure closes the connections, which must not still be running. */
async function bothSettled<T>(first: Promise<T>, second: Promise<unknown>): Promise<T> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return a.value;
}

/** What the distinct values of a text column tell its profile (their count and bounds), and the table holding them. */
interface TextValues {
  readonly counter: DistinctCounter;
  readonly lo: string;
  readonly hi: string;
  readonly table: string;
}

/** The text columns that may be stored as codes, each with a temporary table of its distinct values. */
async function valuesOfTextColumns(
  connection: DuckDBConnection,
  columns: readonly SourceColumn[],
  rowCount: number,
): Promise<Map<string, TextValues>> {
  const coded = new Map<string, TextValues>();
  for (const { raw, type, kinds, values } of columns) {
    if (!isStoredAsText(type) || kinds === 0 || values === undefined) continue;
    const counter = new DistinctCounter();
    for (const value of values) counter.add(value);
    if (counter.count() * 2 > rowCount) continue;
    const table = `values_${raw}`;
    await connection.run(`create temp table ${table} (value varchar)`);
    const appender = await connection.createAppender(table, 'main', 'temp');
    for (const value of values) {
      appender.appendVarchar(value);
      appender.endRow();
    }
    appender.closeSync();
    coded.set(raw, { counter, lo: values[0], hi: values[values.length - 1], table: `temp.${table}` });
  }
  return coded;
}

/** One DistinctCounter per column of `sql`, grouped by one grouping set per column: a row's other cells are null. */
async function countDistinct(
  connection: DuckDBConnection,
  sql: string,
  width: number,
): Promise<DistinctCounter[]> {
  const counters = Array.from({ length: width }, () => new DistinctCounter());
  const result = await connection.stream(sql);
  for (
    let chunk = await result.fetchChunk();
    chunk && chunk.rowCount > 0;
    chunk = await result.fetchChunk()
  ) {
    for (let i = 0; i < width; i++) {
      for (const cell of chunk.getColumnVector(i).toArray()) {
        if (cell !== null) counters[i].add(typeof cell === 'string' ? cell : Number(cell));
      }
    }
  }
  return counters;
}

/** A column's values as the row-by-row reader profiles them: integers and booleans as numbers. */
function profiledSql(column: SourceColumn): string {
  const quoted = quoteIdentifier(column.name);
  if (column.type === 'boolean') return `${quoted}::integer`;
  if (column.type === 'integer') return `${quoted}::double`;
  return quoted;
}

interface FileProfile {
  readonly schema: ColumnSchema[];
  /** The DECIMAL type of each number column that has one, by column name. */
  readonly decimals: Map<string, string>;
}

/** The columns' profiles and DECIMAL types, read from the file's typed rows (in file order on one thread). */
async function profileFile(
  connection: DuckDBConnection,
  csv: PlainCsvFile,
  columns: readonly SourceColumn[],
  rowCount: number,
  textValues: ReadonlyMap<string, TextValues>,
): Promise<FileProfile> {
  const typed = `(select ${columns.map((c) => `${loadExpression(c)} as ${quoteIdentifier(c.name)}`).join(', ')}
    from ${readCsvSql(csv)})`;
  const aggregates = columns.map((column, i) => {
    const quoted = quoteIdentifier(column.name);
    const value = profiledSql(column);
    if (textValues.has(column.raw)) return `count(${quoted}) as n${i}`;
    const stats = `count(${quoted}) as n${i}, min(${value}) as lo${i}, max(${value}) as hi${i}, approx_count_distinct(${value}) as d${i}`;
    return column.type === 'number' && column.kinds !== 0
      ? `${stats}, ${decimalFitsSql(quoted, `f${i}_`)}`
      : stats;
  });
  const bounds = await rowOf(connection, `select ${aggregates.join(', ')} from ${typed}`);
  const counted = columns.map((column, i) =>
    textValues.has(column.raw) || Number(bounds[`d${i}`]) > COUNTED_DISTINCT_LIMIT
      ? undefined
      : profiledSql(column),
  );
  const toCount = counted.filter((value): value is string => value !== undefined);
  const counters =
    toCount.length === 0
      ? []
      : await countDistinct(
          connection,
          `select ${toCount.map((value, i) => `${value} as v${i}`).join(', ')} from ${typed}
           group by grouping sets (${toCount.map((_, i) => `(v${i})`).join(', ')})`,
          toCount.length,
        );
  const schema: ColumnSchema[] = [];
  const decimals = new Map<string, string>();
  let next = 0;
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    const text = textValues.get(column.raw);
    const counter = text?.counter ?? (counted[i] === undefined ? undefined : counters[next++]);
    const { [`n${i}`]: present, [`d${i}`]: approx } = bounds;
    const { lo, hi } = text ?? { lo: bounds[`lo${i}`], hi: bounds[`hi${i}`] };
    const samples = await samplesOf(
      connection,
      typed,
      profiledSql(column),
      quoteIdentifier(column.name),
      counter?.isEstimate === false ? counter.count() : undefined,
    );
    schema.push(profileOf(column, rowCount, { present, lo, hi, approx }, counter, samples));
    if (column.type === 'number' && column.kinds !== 0) {
      const decimal = decimalOrDoubleOf(bounds, `f${i}_`);
      if (decimal !== 'double') decimals.set(column.name, decimal);
    }
  }
  return { schema, decimals };
}

function profileOf(
  column: SourceColumn,
  rowCount: number,
  bounds: Record<'present' | 'lo' | 'hi' | 'approx', unknown>,
  counter: DistinctCounter | undefined,
  samples: SampleValues,
): ColumnSchema {
  const isTextColumn = column.type === 'string' || column.type === 'date';
  let min: ColumnValue = null;
  let max: ColumnValue = null;
  let boundsCut = false;
  if (bounds.lo !== null && isTextColumn) {
    const cutMin = cutText(bounds.lo as string);
    const cutMax = cutText(bounds.hi as string);
    min = cutMin.text;
    max = cutMax.text;
    boundsCut = cutMin.cut || cutMax.cut;
  } else if (bounds.lo !== null) {
    min = presentValue(Number(bounds.lo), column.type);
    max = presentValue(Number(bounds.hi), column.type);
  }
  return columnSchemaOf(
    {
      name: column.name,
      kinds: column.kinds,
      nullCount: rowCount - Number(bounds.present),
      distinctCount: counter ? counter.count() : Number(bounds.approx),
      distinctEstimated: counter ? counter.isEstimate : true,
      min,
      max,
      boundsCut,
      samples,
    },
    rowCount,
  );
}

/** The first rows' values (a scan on one thread keeps file order), else the first distinct ones if there are more. */
async function samplesOf(
  connection: DuckDBConnection,
  typed: string,
  value: string,
  quoted: string,
  distinct: number | undefined,
): Promise<SampleValues> {
  const take = async (sql: string): Promise<{ samples: SampleValues; rows: number }> => {
    const samples = new SampleValues();
    const rows = (await connection.runAndReadAll(sql)).getRowsJS();
    for (const [cell] of rows) {
      if (samples.isFull) break;
      samples.add(typeof cell === 'string' ? cell : Number(cell));
    }
    return { samples, rows: rows.length };
  };
  const first = await take(`select ${value} from ${typed} where ${quoted} is not null limit ${SAMPLE_ROWS}`);
  if (first.samples.isFull || first.rows < SAMPLE_ROWS || first.samples.values.length === distinct) {
    return first.samples;
  }
  const byFirstRow = await take(
    `select ${value} from (select *, row_number() over () as _n from ${typed}) where ${quoted} is not null
     group by ${value} order by min(_n) limit ${SAMPLE_ROWS}`,
  );
  return byFirstRow.samples;
}
