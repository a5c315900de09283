import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConnectorError } from '../connector-error';
import { FileType } from '../file-types';
import { readCsv } from './csv';
import { loadWorkbook, pickSheet, sheetRecords } from './excel';
import { locateRecords, parseJsonText, toFlatRecords } from './json';
import { parquetBytes, parquetFile, ParquetInfo, readParquet } from './parquet';
import { checkWholeParse, ParseLimits, ShapeGuard } from './parse-limits';
import { CollisionLog, isTextTable, ParsedRecord, RowBatch } from './records';
import { decodeStream, decodeText } from './text';

export { CollisionLog, getPath } from './records';
export type { ParsedRecord, RowBatch } from './records';
export type { ParseLimits } from './parse-limits';
export { checkJsonNesting, locateRecords, toFlatRecords } from './json';

/** Where a file's bytes come from: inline (decoded `content`, an object-store download) or a checked local path. */
export type FileSource =
  { readonly kind: 'bytes'; readonly bytes: Uint8Array } | { readonly kind: 'path'; readonly path: string };

export interface FormatOptions {
  readonly fileType: FileType;
  readonly jsonPath?: string;
  readonly sheet?: string | number;
  readonly delimiter?: string;
  readonly encoding?: string;
  readonly hasHeader?: boolean;
  readonly limits?: ParseLimits;
  readonly textTables?: boolean;
  /** Told a Parquet footer before any page is decoded (the parse thread sets its decode budget from it). */
  readonly onParquetFooter?: (footer: ParquetInfo) => void;
  readonly onExcelSheets?: (sheets: readonly string[]) => void;
}

const BINARY_TYPES: ReadonlySet<FileType> = new Set<FileType>(['excel', 'parquet']);

/** Inline `content`: raw text for csv/tsv/json, base64 for excel/parquet (a data: URL prefix is tolerated). */
export function contentBytes(fileType: FileType, content: string): Uint8Array {
  if (!BINARY_TYPES.has(fileType)) return Buffer.from(content, 'utf8');
  const body = content.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (body === '' || body.length % 4 === 1 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) {
    throw new ConnectorError(
      'invalid_payload',
      `The ${fileType} content is not valid base64 and cannot be decoded.`,
    );
  }
  return Buffer.from(body, 'base64');
}

async function* fileChunks(source: FileSource): AsyncGenerator<Uint8Array> {
  if (source.kind === 'bytes') {
    yield source.bytes;
    return;
  }
  // Chunks below V8's large-object size (128 KB): their decoded text dies young instead of waiting for a full GC.
  yield* createReadStream(source.path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>;
}

async function wholeFile(source: FileSource): Promise<Uint8Array> {
  return source.kind === 'bytes' ? source.bytes : readFile(source.path);
}

/** Streams a file's records in file order; JSON and Excel are parsed whole, CSV and Parquet stream. */
export async function* readFileRecords(
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
): AsyncGenerator<ParsedRecord[]> {
  for await (const batch of readFileBatches(
    source,
    { ...options, textTables: false },
    batchSize,
    collisions,
  )) {
    if (!isTextTable(batch)) yield batch;
  }
}

export async function* readFileBatches(
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
): AsyncGenerator<RowBatch> {
  const { limits } = options;
  if (!limits) {
    yield* readFormat(source, options, batchSize, collisions);
    return;
  }
  const guard = new ShapeGuard(limits);
  for await (const batch of readFormat(source, options, batchSize, collisions)) {
    guard.observe(batch);
    yield batch;
  }
}

async function* readFormat(
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
): AsyncGenerator<RowBatch> {
  switch (options.fileType) {
    case 'csv':
    case 'tsv':
      yield* readCsv(decodeStream(fileChunks(source), options.encoding), {
        delimiter: options.delimiter ?? (options.fileType === 'tsv' ? '\t' : undefined),
        hasHeader: options.hasHeader,
        batchSize,
        maxColumns: options.limits?.maxColumns,
        textTables: options.textTables,
      });
      return;
    case 'json': {
      const whole = await wholeFile(source);
      if (options.limits) checkWholeParse(whole.byteLength, options.limits);
      const text = decodeText(whole, options.encoding);
      yield* inBatches(
        toFlatRecords(locateRecords(parseJsonText(text), options.jsonPath), collisions),
        batchSize,
      );
      return;
    }
    case 'excel': {
      const workbook = await loadWorkbook(await wholeFile(source), options.limits);
      options.onExcelSheets?.(workbook.sheets);
      yield* inBatches(sheetRecords(pickSheet(workbook, options.sheet), options.limits), batchSize);
      return;
    }
    case 'parquet': {
      const file = source.kind === 'path' ? await parquetFile(source.path) : parquetBytes(source.bytes);
      yield* readParquet(file, batchSize, collisions, options.limits, options.onParquetFooter);
      return;
    }
  }
}

function* inBatches(records: ParsedRecord[], batchSize: number): Generator<ParsedRecord[]> {
  for (let i = 0; i < records.length; i += batchSize) yield records.slice(i, i + batchSize);
}

export interface FileDescription {
  readonly records: number;
  readonly columns: readonly string[];
  readonly sample: readonly ParsedRecord[];
  readonly sheets?: readonly string[];
  readonly columnTypes?: readonly { name: string; type: string }[];
  readonly warnings: readonly string[];
}

/** Parses a whole file to count its records, name its columns and keep a short sample (tests and browse). */
export async function describeFile(
  source: FileSource,
  options: FormatOptions,
  sampleSize = 5,
): Promise<FileDescription> {
  if (source.kind === 'bytes' && source.bytes.byteLength === 0) {
    throw new ConnectorError('invalid_payload', 'The file is empty.');
  }
  const collisions = new CollisionLog();
  const columns = new Set<string>();
  const sample: ParsedRecord[] = [];
  let records = 0;
  let columnTypes: FileDescription['columnTypes'];
  let sheets: FileDescription['sheets'];
  const reading: FormatOptions = {
    ...options,
    onParquetFooter: (footer) => {
      columnTypes = footer.columns;
      options.onParquetFooter?.(footer);
    },
    onExcelSheets: (names) => {
      sheets = names;
      options.onExcelSheets?.(names);
    },
  };
  for await (const batch of readFileRecords(source, reading, 1000, collisions)) {
    for (const record of batch) {
      for (const key of Object.keys(record)) columns.add(key);
      if (sample.length < sampleSize) sample.push(record);
    }
    records += batch.length;
  }
  const extra: Pick<FileDescription, 'sheets' | 'columnTypes'> = {};
  if (sheets) Object.assign(extra, { sheets });
  if (columnTypes) Object.assign(extra, { columnTypes });
  const warning = collisions.message();
  return { records, columns: [...columns], sample, warnings: warning ? [warning] : [], ...extra };
}
