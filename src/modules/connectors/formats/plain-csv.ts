import { FileHandle, open } from 'node:fs/promises';
import { columnNames, sniffCsv } from './csv';
import { ParseLimits } from './parse-limits';
import { detectEncoding, SNIFF_BYTES } from './text';

/**
 * A CSV that may be simple enough for DuckDB's own reader to match readCsv; the dataset build's scan of every byte
 * decides (docs/datasets.md, "CSV files read by DuckDB").
 */
export interface PlainCsvFile {
  readonly path: string;
  readonly delimiter: string;
  readonly hasHeader: boolean;
  readonly columns: readonly string[];
  readonly limits: Pick<ParseLimits, 'maxColumns' | 'maxCells' | 'maxCellBytes'>;
}

export interface PlainCsvOptions {
  readonly delimiter?: string;
  readonly hasHeader?: boolean;
  readonly encoding?: string;
}

/**
 * The file as a PlainCsvFile, or undefined when its encoding or first line needs readCsv. The dataset build's scan
 * (csv-scan.ts) reads the whole file and still sends it row by row on a quote, a CR, a NUL or text beyond the BMP.
 */
export async function plainCsvFile(
  path: string,
  options: PlainCsvOptions,
  limits: ParseLimits,
): Promise<PlainCsvFile | undefined> {
  if (options.encoding !== undefined && !/^utf-?8$/i.test(options.encoding)) return undefined;
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    if (bytesRead === 0 || detectEncoding(head, options.encoding) !== 'utf-8') return undefined;
    const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
    const sample = await sampleText(file, head);
    const newline = sample.indexOf('\n');
    if (newline < 0) return undefined;
    const layout = sniffCsv(sample, options);
    if (bom && !layout.hasHeader) return undefined;
    const cells = sample.slice(0, newline).split(layout.delimiter);
    if (cells.every((cell) => cell.trim() === '')) return undefined;
    const columns = layout.hasHeader ? columnNames(cells) : cells.map((_, index) => `column_${index + 1}`);
    return { path, delimiter: layout.delimiter, hasHeader: layout.hasHeader, columns, limits };
  } finally {
    await file.close();
  }
}

/** The text readCsv sniffs: whole SNIFF_BYTES chunks decoded until it holds SNIFF_BYTES characters. */
async function sampleText(file: FileHandle, head: Buffer): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let sample = decoder.decode(head, { stream: true });
  const chunk = Buffer.allocUnsafe(SNIFF_BYTES);
  for (let position = head.length; sample.length < SNIFF_BYTES;) {
    const { bytesRead } = await file.read(chunk, 0, SNIFF_BYTES, position);
    if (bytesRead === 0) return sample + decoder.decode();
    sample += decoder.decode(chunk.subarray(0, bytesRead), { stream: true });
    position += bytesRead;
  }
  return sample;
}
