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
import { answeredAs, ENUM_VALUE_BITS, storeColumn, StoredColumn, storedTypeOf } from './dataset-store-layout';
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

const KIND_UNSURE = 1 << 16;

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
/** How far DuckDB's distinct estimate may fall short of the true count (it is within a few per cent). */
const ESTIMATE_MARGIN = 1.25;

// ValueClassifier's kinds for the shapes both read alike; any other text starting with a digit, - or . is unsure.
const INTEGER_TEXT = `'-?(0|[1-9][0-9]{0,14})'`;
const DECIMAL_TEXT = `'-?(0|[1-9][0-9]*)[.][0-9]+'`;
const DATE_TEXT = `'[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])'`;
// Only a decimal of more than 15 digits needs its significant digits counted (CASE runs a branch on its rows only).
const SIGNIFICANT = (c: string): string =>
  `(strlen(${c}) <= 16 + (${c}[1] = '-')::int or length(replace(trim(ltrim(${c}, '-'), '0.'), '.', '')) <= 15)`;

function kindSql(c: string): string {
  return `case
    when ${c} is null then 0
    when not (ord(${c}) between 48 and 57 or ord(${c}) in (45, 46)) then
      case when strlen(${c}) in (4, 5) and lower(${c}) in ('true', 'false') then ${KIND_BOOLEAN} else ${KIND_STRING} end
    when regexp_full_match(${c}, ${INTEGER_TEXT}) then ${KIND_INTEGER}
    when regexp_full_match(${c}, ${DECIMAL_TEXT}) and ${SIGNIFICANT(c)} then ${KIND_NUMBER}
    when regexp_full_match(${c}, ${DATE_TEXT}) then ${KIND_DATE}
    else ${KIND_UNSURE} end`;
}

interface SourceColumn {
  readonly name: string;
  readonly raw: string;
  readonly kinds: number;
  readonly type: ColumnType;
  /** DuckDB's estimate of its distinct texts in the file. */
  readonly approxDistinct: number;
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
  try {
    instance = await openBuildInstance(partialPath, options);
    connection = await instance.connect();
    const classified = await classify(connection, csv);
    if (classified === undefined) return undefined;
    const schema = await load(connection, csv, classified.columns, classified.rowCount, options);
    connection.closeSync();
    instance.closeSync();
    connection = undefined;
    instance = undefined;
    return { ...schema, bytes: publishVersion(partialPath, finalPath) };
  } catch (error) {
    throw duckError(error);
  } finally {
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
  connection: DuckDBConnection,
  csv: PlainCsvFile,
): Promise<{ columns: SourceColumn[]; rowCount: number } | undefined> {
  const raws = csv.columns.map((_, i) => `c${i}`);
  // Wider than readCsv's isBlankRow: a doubtful row only sends the file the row-by-row way.
  const blank = raws.map((c) => `(${c} is null or not (ord(${c}) between 33 and 126))`).join(' and ');
  const aggregates = raws.map(
    (c) =>
      `bit_or(${kindSql(c)}) as k_${c}, max(strlen(${c})) as b_${c}, approx_count_distinct(${c}) as d_${c}`,
  );
  let row: Record<string, unknown>;
  try {
    row = await rowOf(
      connection,
      `select count(*) as n, count(*) filter (where ${blank}) as blank, ${aggregates.join(', ')} from ${readCsvSql(csv)}`,
    );
  } catch {
    // Ragged rows, invalid UTF-8: readCsv reads them or refuses them in its own words.
    return undefined;
  }
  const rows = Number(row.n);
  if (rows === 0 || Number(row.blank) > 0 || rows * raws.length > csv.limits.maxCells) return undefined;
  const names = new ColumnNamer();
  const columns: SourceColumn[] = [];
  for (let i = 0; i < raws.length; i++) {
    const c = raws[i];
    const kinds = Number(row[`k_${c}`] ?? 0);
    if (!DIRECT_MASKS.has(kinds) || Number(row[`b_${c}`] ?? 0) > csv.limits.maxCellBytes) return undefined;
    columns.push({
      name: names.nameOf(csv.columns[i]),
      raw: c,
      kinds,
      type: typeOfKinds(kinds),
      approxDistinct: Number(row[`d_${c}`] ?? 0),
    });
  }
  return { columns, rowCount: rows };
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

const LOADED_SQL: Record<ColumnType, string> = {
  integer: 'bigint',
  number: 'double',
  boolean: 'boolean',
  string: 'varchar',
  date: 'varchar',
  timestamp: 'varchar',
};

/** Distinct text values of a column this many or fewer are cast to its ENUM as the file is read; more, afterwards. */
const INLINE_ENUM_LIMIT = 1 << 12;
/** The build's temporary table of every distinct value of the columns that may be coded, by grouping set. */
const VALUES_TABLE = 'temp.distinct_values';

/**
 * Writes the version's table in one ordered pass over the file on one thread: parallel writers leave partial row groups
 * that a checkpoint rewrites at twice the cost. Text is written in its stored type, decided from the file's distinct
 * values first. A cast to an ENUM of many values is slow per row, and a DECIMAL scale is judged best from the stored
 * numbers, so those columns are altered afterwards, from the compressed table.
 */
async function load(
  connection: DuckDBConnection,
  csv: PlainCsvFile,
  columns: readonly SourceColumn[],
  rowCount: number,
  options: DatasetBuildOptions,
): Promise<Omit<WrittenDataset, 'bytes'>> {
  const values = await valuesOfTextColumns(connection, csv, columns, rowCount);
  const statements = {
    one: (sql: string) => rowOf(connection, sql),
    run: (sql: string) => connection.run(sql),
  };
  const storedColumn = (column: SourceColumn): StoredColumn => ({
    ...column,
    empty: column.kinds === 0,
    distinctCount: values.get(column.raw)?.count() ?? rowCount,
  });
  const outputs = [`row_number() over () as ${quoteIdentifier(ROW_COLUMN)}`];
  const later: SourceColumn[] = [];
  for (const column of columns) {
    const quoted = quoteIdentifier(column.name);
    const counter = values.get(column.raw);
    if (!counter || counter.count() > INLINE_ENUM_LIMIT) {
      if (counter || column.type === 'number') later.push(column);
      outputs.push(`${loadExpression(column)} as ${quoted}`);
      continue;
    }
    const from = `(select ${column.raw} as ${quoted} from ${VALUES_TABLE})`;
    const target = await storedTypeOf(statements, storedColumn(column), rowCount, from);
    outputs.push(`cast(${loadExpression(column)} as ${target}) as ${quoted}`);
  }
  await connection.run('set threads = 1');
  await connection.run(`create table ${DATA_TABLE} as select ${outputs.join(', ')} from ${readCsvSql(csv)}`);
  await connection.run(`set threads = ${options.threads ?? 1}`);
  await connection.run('checkpoint');
  const bounds = await rowOf(connection, `select ${columns.map(statsSql).join(', ')} from ${DATA_TABLE}`);
  const schema: ColumnSchema[] = [];
  for (let i = 0; i < columns.length; i++) {
    const { [`n${i}`]: present, [`lo${i}`]: lo, [`hi${i}`]: hi, [`d${i}`]: approx } = bounds;
    const counter = values.get(columns[i].raw);
    schema.push(await profile(connection, columns[i], rowCount, { present, lo, hi, approx }, counter));
  }
  // Profiled before the DECIMAL casts, as the row-by-row reader's numbers are: -0 is a sample value.
  for (const column of later) {
    await storeColumn(statements, storedColumn(column), rowCount, LOADED_SQL[column.type]);
  }
  await writeLayoutMeta((sql) => connection.run(sql));
  await connection.run('checkpoint');
  return { rowCount, columns: schema };
}

function statsSql(column: SourceColumn, i: number): string {
  const quoted = quoteIdentifier(column.name);
  const value = storedSql(column);
  return `count(${quoted}) as n${i}, min(${value}) as lo${i}, max(${value}) as hi${i}, approx_count_distinct(${quoted}) as d${i}`;
}

/**
 * Every distinct value of each text column that may be stored as codes (by its estimate from the file), gathered in
 * one pass over the file into VALUES_TABLE, and counted.
 */
async function valuesOfTextColumns(
  connection: DuckDBConnection,
  csv: PlainCsvFile,
  columns: readonly SourceColumn[],
  rowCount: number,
): Promise<Map<string, DistinctCounter>> {
  const candidates = columns.filter(
    (c) => isText(c) && c.kinds !== 0 && c.approxDistinct <= 2 ** ENUM_VALUE_BITS * ESTIMATE_MARGIN,
  );
  const counters = new Map<string, DistinctCounter>();
  if (candidates.length === 0) return counters;
  const raws = candidates.map((c) => c.raw);
  await connection.run(
    `create temp table distinct_values as select ${raws.join(', ')} from ${readCsvSql(csv)}
     group by grouping sets (${raws.map((c) => `(${c})`).join(', ')})`,
  );
  for (const column of candidates) {
    const counter = new DistinctCounter();
    const result = await connection.stream(
      `select ${column.raw} from ${VALUES_TABLE} where ${column.raw} is not null`,
    );
    for (
      let chunk = await result.fetchChunk();
      chunk && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    ) {
      for (const cell of chunk.getColumnVector(0).toArray()) counter.add(cell as string);
    }
    if (counter.count() * 2 <= rowCount) counters.set(column.raw, counter);
  }
  return counters;
}

function isText(column: SourceColumn): boolean {
  return column.type === 'string' || column.type === 'date' || column.type === 'timestamp';
}

function storedSql(column: SourceColumn): string {
  const quoted = quoteIdentifier(column.name);
  if (column.type === 'boolean') return `${quoted}::integer`;
  if (column.type === 'integer') return `${quoted}::double`;
  return answeredAs(column.type, quoted);
}

async function profile(
  connection: DuckDBConnection,
  column: SourceColumn,
  rowCount: number,
  bounds: Record<'present' | 'lo' | 'hi' | 'approx', unknown>,
  textValues: DistinctCounter | undefined,
): Promise<ColumnSchema> {
  const value = storedSql(column);
  const quoted = quoteIdentifier(column.name);
  let distinctCount = Number(bounds.approx);
  let distinctEstimated = true;
  const counter =
    textValues ??
    (distinctCount <= COUNTED_DISTINCT_LIMIT ? await distinctOf(connection, value, quoted) : undefined);
  if (counter) {
    distinctCount = counter.count();
    distinctEstimated = counter.isEstimate;
  }
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
      distinctCount,
      distinctEstimated,
      min,
      max,
      boundsCut,
      samples: await samplesOf(connection, value, quoted),
    },
    rowCount,
  );
}

async function distinctOf(
  connection: DuckDBConnection,
  value: string,
  quoted: string,
): Promise<DistinctCounter> {
  const counter = new DistinctCounter();
  const result = await connection.stream(
    `select distinct ${value} from ${DATA_TABLE} where ${quoted} is not null`,
  );
  for (
    let chunk = await result.fetchChunk();
    chunk && chunk.rowCount > 0;
    chunk = await result.fetchChunk()
  ) {
    for (const cell of chunk.getColumnVector(0).toArray()) {
      counter.add(typeof cell === 'string' ? cell : Number(cell));
    }
  }
  return counter;
}

async function samplesOf(connection: DuckDBConnection, value: string, quoted: string): Promise<SampleValues> {
  const take = async (sql: string): Promise<{ samples: SampleValues; rows: number }> => {
    const samples = new SampleValues();
    const rows = (await connection.runAndReadAll(sql)).getRowsJS();
    for (const [cell] of rows) {
      if (samples.isFull) break;
      samples.add(typeof cell === 'string' ? cell : Number(cell));
    }
    return { samples, rows: rows.length };
  };
  const first = await take(
    `select ${value} from ${DATA_TABLE} where ${quoted} is not null order by rowid limit ${SAMPLE_ROWS}`,
  );
  if (first.samples.isFull || first.rows < SAMPLE_ROWS) return first.samples;
  const byFirstRow = await take(
    `select ${value} from ${DATA_TABLE} where ${quoted} is not null group by ${value}
     order by min(rowid) limit ${SAMPLE_ROWS}`,
  );
  return byFirstRow.samples;
}
