import type { AppConfig } from '../../../common/config';
import { ConnectorError } from '../connector-error';
import { isTextTable, RowBatch, TextTable } from './records';

/** What one parse may use (config SERVICE_PARSE_*; docs/security.md "Uploads and file parsing"). */
export interface ParseLimits {
  readonly maxColumns: number;
  readonly maxCells: number;
  readonly maxCellBytes: number;
  readonly maxDecompressedBytes: number;
  /** Decompressed bytes per byte of file, enforced once the content expands beyond RATIO_FLOOR_BYTES. */
  readonly maxExpansionRatio: number;
  readonly memoryMb: number;
  /** Parse threads the appliance runs at once, and the heap they may take together (MB); more wait their turn. */
  readonly maxThreads: number;
  readonly totalMemoryMb: number;
  readonly maxArchiveEntries: number;
  readonly maxArchiveBytes: number;
}

export function parseLimitsOf(config: AppConfig): ParseLimits {
  return {
    maxColumns: config.parseMaxColumns,
    maxCells: config.parseMaxCells,
    maxCellBytes: config.parseMaxCellBytes,
    maxDecompressedBytes: config.parseMaxDecompressedBytes,
    maxExpansionRatio: config.parseMaxExpansionRatio,
    memoryMb: config.parseMemoryMb,
    maxThreads: config.parseMaxThreads,
    totalMemoryMb: config.parseTotalMemoryMb,
    maxArchiveEntries: config.parseMaxArchiveEntries,
    maxArchiveBytes: config.maxUploadBytes,
  };
}

/** Small files may expand freely up to this size: the ratio matters only for what could hurt. */
export const RATIO_FLOOR_BYTES = 16 * 1024 * 1024;

/** A decoded value costs at least this much, so a Parquet file's cells bound its expansion from below. */
export const BYTES_PER_CELL = 8;

export function checkExpansion(
  what: string,
  fileBytes: number,
  expandedBytes: number,
  limits: ParseLimits,
): void {
  if (expandedBytes > limits.maxDecompressedBytes) {
    throw new ConnectorError(
      'invalid_payload',
      `${what} expands to ${expandedBytes} bytes, more than the ${limits.maxDecompressedBytes} allowed (SERVICE_PARSE_MAX_DECOMPRESSED_BYTES).`,
    );
  }
  if (expandedBytes > RATIO_FLOOR_BYTES && expandedBytes > fileBytes * limits.maxExpansionRatio) {
    throw new ConnectorError(
      'invalid_payload',
      `${what} expands ${Math.round(expandedBytes / Math.max(1, fileBytes))}-fold (${fileBytes} bytes to ${expandedBytes}), more than the ${limits.maxExpansionRatio}-fold allowed (SERVICE_PARSE_MAX_EXPANSION_RATIO).`,
    );
  }
}

/** V8 cannot interrupt JSON.parse and its objects take up to this many times the text: bigger text is refused. */
export const JSON_HEAP_FACTOR = 16;

export function checkWholeParse(fileBytes: number, limits: ParseLimits): void {
  const allowed = Math.floor((limits.memoryMb * 1024 * 1024) / JSON_HEAP_FACTOR);
  if (fileBytes > allowed) {
    throw new ConnectorError(
      'invalid_payload',
      `The JSON file has ${fileBytes} bytes; parsing it whole is limited to ${allowed} (1/${JSON_HEAP_FACTOR} of SERVICE_PARSE_MEMORY_MB).`,
    );
  }
}

export function tooManyColumns(columns: number, limits: Pick<ParseLimits, 'maxColumns'>): ConnectorError {
  return new ConnectorError(
    'invalid_payload',
    `The file has ${columns} or more columns, more than the ${limits.maxColumns} allowed (SERVICE_PARSE_MAX_COLUMNS).`,
  );
}

export function checkCells(cells: number, limits: ParseLimits): void {
  if (cells > limits.maxCells) {
    throw new ConnectorError(
      'invalid_payload',
      `The file has more than ${limits.maxCells} cells (SERVICE_PARSE_MAX_CELLS).`,
    );
  }
}

const MAX_UTF8_BYTES_PER_UNIT = 3;
const NAME_SHOWN = 100;

function cellTooLarge(column: string, limits: ParseLimits): ConnectorError {
  return new ConnectorError(
    'invalid_payload',
    `A cell of column "${column.slice(0, NAME_SHOWN)}" is larger than the ${limits.maxCellBytes} bytes allowed (SERVICE_PARSE_MAX_CELL_BYTES).`,
  );
}

function exceedsCellBytes(text: string, limits: ParseLimits): boolean {
  return text.length > limits.maxCellBytes || Buffer.byteLength(text, 'utf8') > limits.maxCellBytes;
}

export class ShapeGuard {
  private readonly columns = new Set<string>();
  private cells = 0;

  /** Code units below which text cannot exceed maxCellBytes, so only longer cells are measured. */
  private readonly alwaysFits: number;

  constructor(private readonly limits: ParseLimits) {
    this.alwaysFits = Math.floor(limits.maxCellBytes / MAX_UTF8_BYTES_PER_UNIT);
  }

  observe(batch: RowBatch): void {
    if (isTextTable(batch)) {
      for (const key of batch.columns) this.addColumn(key);
      this.cells += batch.rows * new Set(batch.columns).size;
      checkCells(this.cells, this.limits);
      this.checkTableCells(batch);
      return;
    }
    for (const record of batch) {
      let width = 0;
      for (const key in record) {
        width++;
        this.addColumn(key);
        const value = record[key];
        if (
          typeof value === 'string' &&
          value.length > this.alwaysFits &&
          exceedsCellBytes(value, this.limits)
        ) {
          throw cellTooLarge(key, this.limits);
        }
      }
      this.cells += width;
    }
    checkCells(this.cells, this.limits);
  }

  private addColumn(key: string): void {
    if (this.columns.has(key)) return;
    if (key.length > this.alwaysFits && exceedsCellBytes(key, this.limits))
      throw cellTooLarge(key, this.limits);
    this.columns.add(key);
    if (this.columns.size > this.limits.maxColumns) throw tooManyColumns(this.columns.size, this.limits);
  }

  private checkTableCells(table: TextTable): void {
    const { ends, text, columns } = table;
    let start = 0;
    for (let cell = 0; cell < ends.length; cell++) {
      const end = ends[cell];
      if (end - start > this.alwaysFits && exceedsCellBytes(text.slice(start, end), this.limits)) {
        throw cellTooLarge(columns[cell % columns.length], this.limits);
      }
      start = end;
    }
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const ZIP64_MARKER = 0xffffffff;

/** A zip's declared uncompressed size, from its central directory (the inflater holds entries to it); zip64 = ∞. */
export function zipExpandedBytes(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lowest = Math.max(0, bytes.byteLength - 22 - 0xffff);
  let eocd = -1;
  for (let at = bytes.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ConnectorError('invalid_payload', 'The Excel workbook is not a complete zip file.');
  const entries = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  let total = 0;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > bytes.byteLength || view.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      throw new ConnectorError('invalid_payload', 'The Excel workbook has a damaged zip directory.');
    }
    const size = view.getUint32(at + 24, true);
    if (size === ZIP64_MARKER) return Number.POSITIVE_INFINITY;
    total += size;
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return total;
}
