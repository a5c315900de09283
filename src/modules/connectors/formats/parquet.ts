import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';
import { CollisionLog, flattenRecord, ParsedRecord } from './records';

type Hyparquet = typeof import('hyparquet');
type Compressors = typeof import('hyparquet-compressors');

/** hyparquet is ESM-only; Node ≥ 20.19 require()s it. */
const load = loadOnFirstUse((): Promise<[Hyparquet, Compressors]> =>
  Promise.all([import('hyparquet'), import('hyparquet-compressors')]),
);

const PARQUET_MAGIC = 'PAR1';

/** An async buffer over a local file (read by ranges, never loaded whole). */
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

export async function readParquetInfo(file: AsyncBuffer): Promise<ParquetInfo> {
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
  return { metadata, rows: Number(metadata.num_rows), columns };
}

/**
 * Streams a Parquet file row group by row group (in batches of at most batchSize). INT64 values beyond 2^53 stay
 * exact as strings; nested groups are flattened to dotted columns.
 */
export async function* readParquet(
  file: AsyncBuffer,
  batchSize: number,
  collisions: CollisionLog,
): AsyncGenerator<ParsedRecord[]> {
  const [hyparquet, { compressors }] = await load();
  const info = await readParquetInfo(file);
  for (let start = 0; start < info.rows; start += batchSize) {
    const end = Math.min(info.rows, start + batchSize);
    let rows: Record<string, unknown>[];
    try {
      rows = await hyparquet.parquetReadObjects({
        file,
        metadata: info.metadata,
        rowStart: start,
        rowEnd: end,
        compressors,
      });
    } catch (error) {
      throw new ConnectorError(
        'invalid_payload',
        `The Parquet data cannot be read: ${(error as Error).message}`,
      );
    }
    yield rows.map((row) => {
      const flat = flattenRecord(row);
      collisions.add(flat.collisions);
      return flat.record;
    });
  }
}
