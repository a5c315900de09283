import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';
import type { PlainCsvFile } from '../connectors/connectors.types';
import { ENUM_VALUE_BITS } from './dataset-store-layout';
import { KIND_BOOLEAN, KIND_DATE, KIND_INTEGER, KIND_NUMBER, KIND_STRING } from './value-kinds';

export const CSV_SCAN_PATH = join(APP_ROOT, 'engine_build', 'csvscan');

/** Past this many bytes of distinct text in one column, the file goes the row-by-row way (which bounds its memory). */
const DISTINCT_BYTES = 16 << 20;
/** DuckDB's read_csv refuses a longer line (its max_line_size, 2,000,000 bytes with the newline); readCsv takes it. */
const LONGEST_LINE_BYTES = 1_999_999;

const KIND_OF_SHAPE: Readonly<Record<string, number>> = {
  integer: KIND_INTEGER,
  decimal: KIND_NUMBER,
  string: KIND_STRING,
  boolean: KIND_BOOLEAN,
  date: KIND_DATE,
};

export interface ScannedColumn {
  /** ValueClassifier's kinds of its cells. */
  readonly kinds: number;
  /** Its longest cell, in bytes. */
  readonly widest: number;
  /** Every distinct text, sorted bytewise, when all its cells are text or dates and there are at most 2^ENUM_VALUE_BITS. */
  readonly values: readonly string[] | undefined;
}

export interface ScannedCsv {
  readonly rowCount: number;
  readonly columns: readonly ScannedColumn[];
}

interface ScanOutput {
  rows: number;
  longest_line: number;
  refusal: string;
  columns: { shapes: string[]; widest: number; values: string[] | null }[];
}

/**
 * One pass of engine_build/csvscan over the file (native/csvscan): undefined when a row, a cell's UTF-8, a line
 * longer than DuckDB reads, or a shape only the row-by-row reader judges sends the file that way.
 */
export async function scanPlainCsv(csv: PlainCsvFile, threads: number): Promise<ScannedCsv | undefined> {
  if (Buffer.byteLength(csv.delimiter) !== 1) return undefined;
  const width = csv.columns.length;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      CSV_SCAN_PATH,
      [
        csv.path,
        csv.delimiter,
        csv.hasHeader ? '1' : '0',
        String(width),
        String(2 ** ENUM_VALUE_BITS),
        String(DISTINCT_BYTES),
        String(Math.max(1, threads)),
      ],
      // JSON escapes a control character in six bytes.
      { maxBuffer: width * DISTINCT_BYTES * 6 + (1 << 20), encoding: 'utf8' },
      // Not error.message: it holds the command line, and so the file's path.
      (error, out, err) =>
        error
          ? reject(new Error(err.trim() || `csvscan failed: ${error.signal ?? error.code}`))
          : resolve(out),
    );
  });
  const output = JSON.parse(stdout) as ScanOutput;
  if (output.refusal !== 'none' || output.longest_line > LONGEST_LINE_BYTES) return undefined;
  const columns: ScannedColumn[] = [];
  for (const column of output.columns) {
    if (column.shapes.some((shape) => KIND_OF_SHAPE[shape] === undefined)) return undefined;
    columns.push({
      kinds: column.shapes.reduce((kinds, shape) => kinds | KIND_OF_SHAPE[shape], 0),
      widest: column.widest,
      values: column.values ?? undefined,
    });
  }
  return { rowCount: output.rows, columns };
}
