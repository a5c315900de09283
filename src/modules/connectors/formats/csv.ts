import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { tooManyColumns } from './parse-limits';
import { emptyRecord, ParsedRecord, RowBatch, TextTable } from './records';

export interface CsvOptions {
  readonly delimiter?: string;
  readonly hasHeader?: boolean;
  readonly batchSize: number;
  readonly maxColumns?: number;
  readonly textTables?: boolean;
}

export interface CsvLayout {
  readonly delimiter: string;
  readonly hasHeader: boolean;
}

const DELIMITERS = [',', '\t', ';', '|'];
const SNIFF_ROWS = 50;
const NUMERIC = /^[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?%?$/;

export function sniffCsv(sample: string, options: Pick<CsvOptions, 'delimiter' | 'hasHeader'>): CsvLayout {
  const delimiter =
    options.delimiter ??
    Papa.parse<string[]>(sample, {
      preview: SNIFF_ROWS,
      delimitersToGuess: DELIMITERS,
      skipEmptyLines: 'greedy',
    }).meta.delimiter ??
    ',';
  if (options.hasHeader !== undefined) return { delimiter, hasHeader: options.hasHeader };
  const rows = Papa.parse<string[]>(sample, {
    preview: SNIFF_ROWS,
    delimiter,
    skipEmptyLines: 'greedy',
  }).data;
  return { delimiter, hasHeader: looksLikeHeader(rows) };
}

/**
 * A first row is a header unless it looks like data: each column whose later values are all numeric votes for a
 * header when its first cell is not numeric and against it when it is (the idea of Python's csv.Sniffer).
 */
export function looksLikeHeader(rows: readonly string[][]): boolean {
  const [first, ...rest] = rows;
  if (!first || rest.length === 0) return true;
  if (first.some((cell) => cell.trim() === '')) return rest.every((row) => row.every((c) => c.trim() !== ''));
  let votes = 0;
  first.forEach((cell, column) => {
    const values = rest.map((row) => row[column]?.trim() ?? '').filter((v) => v !== '');
    if (values.length === 0 || !values.every((v) => NUMERIC.test(v))) return;
    votes += NUMERIC.test(cell.trim()) ? -1 : 1;
  });
  return votes >= 0;
}

export function columnNames(header: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((raw, index) => {
    const base = raw.trim() === '' ? `column_${index + 1}` : raw.trim();
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
}

export async function* readCsv(text: AsyncIterable<string>, options: CsvOptions): AsyncGenerator<RowBatch> {
  const iterator = text[Symbol.asyncIterator]();
  let sample = '';
  let done = false;
  while (!done && sample.length < 64 * 1024) {
    const next = await iterator.next();
    if (next.done) done = true;
    else sample += next.value;
  }
  if (sample.trim() === '') return;
  const layout = sniffCsv(sample, options);

  async function* rest(): AsyncGenerator<string> {
    yield sample;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  let columns: string[] | undefined;
  let batch: ParsedRecord[] = [];
  let table: TablePacker | undefined;
  const maxColumns = options.maxColumns ?? Number.POSITIVE_INFINITY;
  for await (const rows of parsedChunks(Readable.from(rest()), layout.delimiter)) {
    for (const row of rows) {
      if (isBlankRow(row)) continue;
      if (maxColumns < row.length) throw tooManyColumns(row.length, { maxColumns });
      if (!columns) {
        if (layout.hasHeader) {
          columns = columnNames(row);
          continue;
        }
        columns = row.map((_, index) => `column_${index + 1}`);
      }
      if (!options.textTables) {
        batch.push(toRecord(columns, row));
        if (batch.length >= options.batchSize) {
          yield batch;
          batch = [];
        }
        continue;
      }
      if (row.length > columns.length) {
        // A longer row adds columns: the rows before it go out at their own width.
        if (table && table.rows > 0) yield table.take();
        for (let i = columns.length; i < row.length; i++) columns.push(`column_${i + 1}`);
        table = undefined;
      }
      table ??= new TablePacker([...columns]);
      table.push(row);
      if (table.rows >= options.batchSize) yield table.take();
    }
  }
  if (batch.length > 0) yield batch;
  if (table && table.rows > 0) yield table.take();
}

class TablePacker {
  rows = 0;
  private cells: string[] = [];
  private ends = new Uint32Array(1024);
  private cell = 0;
  private at = 0;

  constructor(private readonly columns: readonly string[]) {}

  push(row: readonly string[]): void {
    const width = this.columns.length;
    if (this.cell + width > this.ends.length) {
      const grown = new Uint32Array(Math.max(2 * this.ends.length, this.cell + width));
      grown.set(this.ends);
      this.ends = grown;
    }
    for (let i = 0; i < width; i++) {
      const cell = row[i];
      if (cell !== undefined && cell !== '') {
        this.cells.push(cell);
        this.at += cell.length;
      }
      this.ends[this.cell++] = this.at;
    }
    this.rows++;
  }

  take(): TextTable {
    const table: TextTable = {
      columns: this.columns,
      rows: this.rows,
      text: this.cells.join(''),
      ends: this.ends.slice(0, this.cell),
    };
    this.rows = 0;
    this.cells = [];
    this.cell = 0;
    this.at = 0;
    return table;
  }
}

/** Papa's chunk mode (its object-mode stream costs a promise per row), pausing the source so memory stays bounded. */
async function* parsedChunks(source: Readable, delimiter: string): AsyncGenerator<string[][]> {
  const queue: string[][][] = [];
  let finished = false;
  let failure: Error | undefined;
  let paused: Papa.Parser | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  source.on('error', (error: Error) => {
    failure ??= error;
    finished = true;
    signal();
  });
  // Blank rows are dropped by isBlankRow: Papa's 'greedy' mode joins and trims every row to find them.
  Papa.parse<string[]>(source, {
    delimiter,
    skipEmptyLines: true,
    chunk: (results, parser) => {
      queue.push(results.data);
      if (queue.length >= 4) {
        // Papa's pause stops its parsing, not its reading: the source keeps flowing into Papa's own queue of text
        // unless it is paused too (with a slow reader that queue held most of a 54 MB file).
        source.pause();
        parser.pause();
        paused = parser;
      }
      signal();
    },
    complete: () => {
      finished = true;
      signal();
    },
    error: (error: Error) => {
      failure ??= error;
      finished = true;
      signal();
    },
  });
  try {
    for (;;) {
      const rows = queue.shift();
      if (rows) {
        if (paused && queue.length < 2) {
          const parser = paused;
          paused = undefined;
          // The source flows again on a later tick: a parse that refills the queue now pauses it first.
          source.resume();
          parser.resume();
        }
        yield rows;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (finished) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    // A consumer that stops early (a preview) must not leave the file open.
    source.destroy();
  }
}

function isBlankRow(row: readonly string[]): boolean {
  for (const cell of row) {
    if (cell === '') continue;
    const first = cell.charCodeAt(0);
    if (first > 32 && first < 127) return false;
    if (cell.trim() !== '') return false;
  }
  return true;
}

function toRecord(columns: string[], row: readonly string[]): ParsedRecord {
  const record = emptyRecord();
  const width = Math.max(columns.length, row.length);
  for (let i = 0; i < width; i += 1) {
    if (i >= columns.length) columns.push(`column_${i + 1}`);
    const value = row[i];
    record[columns[i]] = value === undefined || value === '' ? null : value;
  }
  return record;
}
