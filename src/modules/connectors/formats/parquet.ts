import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';
import { BYTES_PER_CELL, checkCells, checkExpansion, ParseLimits, tooManyColumns } from './parse-limits';
import { bytesOrText, decimalText, exactDecimalReading, EXACT_PARSERS } from './parquet-values';
import { CollisionLog, flattenRecord, ParsedRecord } from './records';

type Hyparquet = typeof import('hyparquet');
type Compressors = typeof import('hyparquet-compressors');

/** hyparquet is ESM-only; Node ≥ 20.19 require()s it. */
const load = loadOnFirstUse((): Promise<[Hyparquet, Compressors]> =>
  Promise.all([import('hyparquet'), import('hyparquet-compressors')]),
);

const PARQUET_MAGIC = 'PAR1';

export async function parquetFile(path: string): Promise<AsyncBuffer> {
  const [hyparquet] = await load();
  return hyparquet.asyncBufferFromFile(path);
}

export function parquetBytes(bytes: Uint8Array): AsyncBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

async function checkMagic(file: AsyncBuffer): Promise<void> {
  if (file.byteLength < 12)
    throw new ConnectorError('invalid_payload', 'The content is not a Parquet file (too short).');
  const head = Buffer.from(await file.slice(0, 4)).toString('latin1');
  const tail = Buffer.from(await file.slice(file.byteLength - 4)).toString('latin1');
  if (head !== PARQUET_MAGIC || tail !== PARQUET_MAGIC) {
    throw new ConnectorError('invalid_payload', 'The content is not a Parquet file (PAR1 magic missing).');
  }
}

export interface ParquetInfo {
  readonly metadata: FileMetaData;
  readonly rows: number;
  readonly columns: readonly { name: string; type: string }[];
}

async function readParquetInfo(file: AsyncBuffer, limits?: ParseLimits): Promise<ParquetInfo> {
  await checkMagic(file);
  const [hyparquet] = await load();
  let metadata: FileMetaData;
  try {
    metadata = await hyparquet.parquetMetadataAsync(file);
  } catch (error) {
    throw new ConnectorError(
      'invalid_payload',
      `The Parquet metadata cannot be read: ${(error as Error).message}`,
    );
  }
  const schema = hyparquet.parquetSchema(metadata);
  const columns = schema.children.map((child) => ({
    name: child.element.name,
    type: String(
      child.element.logical_type?.type ?? child.element.converted_type ?? child.element.type ?? 'GROUP',
    ),
  }));
  if (limits) checkParquetSize(metadata, file.byteLength, limits);
  return { metadata, rows: Number(metadata.num_rows), columns };
}

/** Decode cost allowed per declared value and page byte (a sound file takes about a third of it). */
const DECODE_MS_PER_CELL = 0.01;
const DECODE_MS_PER_PAGE_BYTE = 1 / 20_000;
const DECODE_BASE_MS = 500;

/** CPU time decoding may take, from the footer's counts: a damaged page claiming billions of values overruns it. */
export function parquetDecodeBudgetMs(metadata: FileMetaData): number {
  const { cells, pageBytes } = declaredSize(metadata);
  return Math.ceil(DECODE_BASE_MS + cells * DECODE_MS_PER_CELL + pageBytes * DECODE_MS_PER_PAGE_BYTE);
}

function declaredSize(metadata: FileMetaData): { leaves: number; cells: number; pageBytes: number } {
  const leaves = Math.max(0, ...metadata.row_groups.map((group) => group.columns.length));
  let groupRows = 0;
  let pageBytes = 0;
  let values = 0;
  for (const group of metadata.row_groups) {
    groupRows += Number(group.num_rows);
    for (const column of group.columns) {
      pageBytes += Number(column.meta_data?.total_uncompressed_size ?? 0);
      values += Number(column.meta_data?.num_values ?? 0);
    }
  }
  // Repeated fields declare more values than rows; each is decoded.
  return {
    leaves,
    cells: Math.max(Math.max(Number(metadata.num_rows), groupRows) * leaves, values),
    pageBytes,
  };
}

/** Judges a Parquet file by its footer: run-length encoding turns a few bytes into millions of values. */
function checkParquetSize(metadata: FileMetaData, fileBytes: number, limits: ParseLimits): void {
  const { leaves, cells, pageBytes } = declaredSize(metadata);
  if (leaves > limits.maxColumns) throw tooManyColumns(leaves, limits);
  checkCells(cells, limits);
  checkExpansion('The Parquet file', fileBytes, Math.max(pageBytes, cells * BYTES_PER_CELL), limits);
}

/** Streams row groups; INT64 beyond 2^53 and DECIMAL beyond 15 digits stay exact as strings. */
export async function* readParquet(
  file: AsyncBuffer,
  batchSize: number,
  collisions: CollisionLog,
  limits?: ParseLimits,
  onFooter?: (footer: ParquetInfo) => void,
): AsyncGenerator<ParsedRecord[]> {
  const [hyparquet, { compressors }] = await load();
  const info = await readParquetInfo(file, limits);
  onFooter?.(info);
  const { metadata, decimals } = exactDecimalReading(info.metadata);
  for (let start = 0; start < info.rows; start += batchSize) {
    const end = Math.min(info.rows, start + batchSize);
    let rows: Record<string, unknown>[];
    try {
      rows = await hyparquet.parquetReadObjects({
        file,
        metadata,
        rowStart: start,
        rowEnd: end,
        compressors,
        parsers: EXACT_PARSERS,
        utf8: false,
      });
    } catch (error) {
      throw new ConnectorError(
        'invalid_payload',
        `The Parquet data cannot be read: ${(error as Error).message}`,
      );
    }
    yield rows.map((row) => {
      for (const [name, scale] of decimals) row[name] = decimalText(row[name], scale);
      for (const name in row) row[name] = bytesOrText(row[name]);
      const flat = flattenRecord(row);
      collisions.add(flat.collisions);
      return flat.record;
    });
  }
}
