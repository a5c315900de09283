import { FileHandle, open } from 'node:fs/promises';
import { columnNames, sniffCsv } from './csv';
import { ParseLimits } from './parse-limits';
import { detectEncoding, SNIFF_BYTES } from './text';

/** A CSV simple enough for DuckDB's own reader to match readCsv (docs/datasets.md, "CSV files read by DuckDB"). */
export interface PlainCsvFile {
  readonly path: string;
  readonly delimiter: string;
  readonly hasHeader: boolean;
  readonly columns: readonly string[];
  readonly limits: Pick<ParseLimits, 'maxColumns' | 'maxCells' | 'maxCellBytes'>;
}

const QUOTE = 0x22;
const CARRIAGE_RETURN = 0x0d;
const NUL = 0x00;
/**
 * The lead bytes of UTF-8's four-byte sequences: text beyond the BMP, which UTF-16 (how the profile compares) and UTF-8
 * (how DuckDB does) order differently.
 */
const ASTRAL_LEADS = [0xf0, 0xf1, 0xf2, 0xf3, 0xf4];
const SCAN_BYTES = 1 << 20;

export interface PlainCsvOptions {
  readonly delimiter?: string;
  readonly hasHeader?: boolean;
  readonly encoding?: string;
}

/** The file as a PlainCsvFile, or undefined when it needs readCsv (any quoting, CRLF, another encoding). */
export async function plainCsvFile(
  path: string,
  options: PlainCsvOptions,
  limits: ParseLimits,
): Promise<PlainCsvFile | undefined> {
  if (options.encoding !== undefined && !/^utf-?8$/i.test(options.encoding)) return undefined;
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(SCAN_BYTES);
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
    if (!(await isPlain(file, buffer))) return undefined;
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

async function isPlain(file: FileHandle, buffer: Buffer): Promise<boolean> {
  for (let position = 0; ;) {
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return true;
    const chunk = buffer.subarray(0, bytesRead);
    if (chunk.includes(QUOTE) || chunk.includes(CARRIAGE_RETURN) || chunk.includes(NUL)) return false;
    if (ASTRAL_LEADS.some((lead) => chunk.includes(lead))) return false;
    position += bytesRead;
  }
}
