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
import {
  decimalFitsSql,
  decimalOrDoubleOf,
  ENUM_VALUE_BITS,
  isStoredAsText,
  storedTypeOf,
} from './dataset-store-layout';
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
const LEADING_ROWS = 10_000;
/** How far DuckDB's distinct estimate may fall short of the true count (it is within a few per cent). */
const ESTIMATE_MARGIN = 1.25;

// ValueClassifier's kinds for the shapes both read alike; any other text starting with a digit, - or . is unsure.
const INTEGER_TEXT = `'-?(0|[1-9][0-9]{0,14})'`;
const DECIMAL_TEXT = `'-?(0|[1-9][0-9]*)[.][0-9]+'`;
const DATE_TEXT = `'[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])'`;
// Only a decimal of more than 15 digits needs its significant digits counted (CASE runs a branch on its rows only).
const SIGNIFICANT = (c: string): string =>
  `(strlen(${c}) <= 16 + (${c}[1] = '-')::int or length(replace(trim(ltrim(${c}, '-'), '0.'), '.', '')) <= 15)`;

const SHAPED_KINDS = [KIND_INTEGER, KIND_NUMBER, KIND_DATE] as const;

function shapeTest(c: string, kind: (typeof SHAPED_KINDS)[number]): string {
  switch (kind) {
    case KIND_INTEGER:
      return `regexp_full_match(${c}, ${INTEGER_TEXT})`;
    case KIND_NUMBER:
      return `regexp_full_match(${c}, ${DECIMAL_TEXT}) and ${SIGNIFICANT(c)}`;
    case KIND_DATE:
      return `regexp_full_match(${c}, ${DATE_TEXT})`;
  }
}

/** A cell's kind. The shapes exclude one another, so testing the column's `lead` kind first changes only the cost. */
function kindSql(c: string, lead = 0): string {
  const shaped = [...SHAPED_KINDS].sort((a, b) => Number(b === lead) - Number(a === lead));
  return `case
    when ${c} is null then 0
    when not (ord(${c}) between 48 and 57 or ord(${c}) in (45, 46)) then
      case when strlen(${c}) in (4, 5) and lower(${c}) in ('true', 'false') then ${KIND_BOOLEAN} else ${KIND_STRING} end
    ${shaped.map((kind) => `when ${shapeTest(c, kind)} then ${kind}`).join('\n    ')}
    else ${KIND_UNSURE} end`;
}

interface SourceColumn {
  readonly name: string;
  readonly raw: string;
  readonly kinds: number;
  readonly type: ColumnType;
  /** DuckDB's estimate of its distinct texts in the file; Infinity when it cannot be a text column (mayBeText). */
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
  let profiler: DuckDBConnection | undefined;
  try {
    instance = await openBuildInstance(partialPath, options);
    connection = await instance.connect();
    const classified = await classify(connection, csv);
    if (classified === undefined) return undefined;
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
  connection: DuckDBConnection,
  csv: PlainCsvFile,
): Promise<{ columns: SourceColumn[]; rowCount: number } | undefined> {
  const raws = csv.columns.map((_, i) => `c${i}`);
  const leads = await leadingKinds(connection, csv, raws);
  if (leads === undefined) return undefined;
  // Wider than readCsv's isBlankRow: a doubtful row only sends the file the row-by-row way.
  const blank = raws.map((c) => `(${c} is null or not (ord(${c}) between 33 and 126))`).join(' and ');
  const aggregates = raws.map(
    (c, i) =>
      `bit_or(${kindSql(c, leads[i])}) as k_${c}, max(strlen(${c})) as b_${c},
       ${mayBeText(leads[i]) ? `approx_count_distinct(${c})` : 'null'} as d_${c}`,
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
      approxDistinct: row[`d_${c}`] === null ? Infinity : Number(row[`d_${c}`]),
    });
  }
  return { columns, rowCount: rows };
}

/** A column leading with numbers or booleans that holds text further down mixes kinds: it goes row by row. */
function mayBeText(lead: number): boolean {
  return lead === 0 || lead === KIND_STRING || lead === KIND_DATE;
}

/** Each column's most common kind in the file's first LEADING_ROWS rows; undefined when DuckDB cannot read them. */
async function leadingKinds(
  connection: DuckDBConnection,
  csv: PlainCsvFile,
  raws: readonly string[],
): Promise<number[] | undefined> {
  try {
    const row = await rowOf(
      connection,
      `select ${raws.map((c) => `mode(${kindSql(c)}) as ${c}`).join(', ')}
       from (select * from ${readCsvSql(csv)} limit ${LEADING_ROWS})`,
    );
    return raws.map((c) => Number(row[c] ?? 0));
  } catch {
    return undefined;
  }
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
/** The build's temporary table of every distinct value of the columns that may be coded, by grouping set. */
const VALUES_TABLE = 'temp.distinct_values';

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
  const values = await valuesOfTextColumns(connection, csv, columns, rowCount);
  const statements = {
    one: (sql: string) => rowOf(connection, sql),
    run: (sql: string) => connection.run(sql),
  };
  const outputs = [`row_number() over () as ${quoteIdentifier(ROW_COLUMN)}`];
  const conversions: string[] = [];
  for (const column of columns) {
    const quoted = quoteIdentifier(column.name);
    const counter = values.get(column.raw)?.counter;
    const loaded = loadExpression(column);
    if (!counter) {
      outputs.push(`${loaded} as ${quoted}`);
      continue;
    }
    const target = await storedTypeOf(
      statements,
      { ...column, empty: false, distinctCount: counter.count() },
      rowCount,
      `(select ${column.raw} as ${quoted} from ${VALUES_TABLE})`,
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

/** What the distinct values of a text column tell its profile: their count and bounds. */
interface TextValues {
  readonly counter: DistinctCounter;
  readonly lo: unknown;
  readonly hi: unknown;
}

/** The text columns stored as codes, from one pass gathering every distinct value of those that may be. */
async function valuesOfTextColumns(
  connection: DuckDBConnection,
  csv: PlainCsvFile,
  columns: readonly SourceColumn[],
  rowCount: number,
): Promise<Map<string, TextValues>> {
  const candidates = columns.filter(
    (c) =>
      isStoredAsText(c.type) && c.kinds !== 0 && c.approxDistinct <= 2 ** ENUM_VALUE_BITS * ESTIMATE_MARGIN,
  );
  const coded = new Map<string, TextValues>();
  if (candidates.length === 0) return coded;
  const raws = candidates.map((c) => c.raw);
  await connection.run(
    `create temp table distinct_values as select ${raws.join(', ')} from ${readCsvSql(csv)}
     group by grouping sets (${raws.map((c) => `(${c})`).join(', ')})`,
  );
  const counted = await countDistinct(
    connection,
    `select ${raws.join(', ')} from ${VALUES_TABLE}`,
    raws.length,
  );
  const bounds = await rowOf(
    connection,
    `select ${raws.map((c) => `min(${c}) as lo_${c}, max(${c}) as hi_${c}`).join(', ')} from ${VALUES_TABLE}`,
  );
  candidates.forEach(({ raw }, i) => {
    const counter = counted[i];
    if (counter.count() * 2 <= rowCount)
      coded.set(raw, { counter, lo: bounds[`lo_${raw}`], hi: bounds[`hi_${raw}`] });
  });
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
