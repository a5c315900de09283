import type { Workbook as ExcelWorkbook, Worksheet } from 'exceljs';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';
import { columnNames } from './csv';
import { checkCells, checkExpansion, ParseLimits, tooManyColumns, zipExpandedBytes } from './parse-limits';
import { emptyRecord, ParsedRecord, toCell } from './records';
import { checkZipEntrySizes } from './zip-entry-sizes';

const loadExcel = loadOnFirstUse(async () => (await import('exceljs')).default);

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0];
const ZIP_SIGNATURE = [0x50, 0x4b];

export interface Workbook {
  readonly sheets: readonly string[];
  readonly book: ExcelWorkbook;
}

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return signature.every((byte, index) => bytes[index] === byte);
}

/** Loads an .xlsx workbook; legacy .xls (OLE) and anything not a zip are refused as invalid_payload. */
export async function loadWorkbook(bytes: Uint8Array, limits?: ParseLimits): Promise<Workbook> {
  if (startsWith(bytes, OLE_SIGNATURE)) {
    throw new ConnectorError(
      'invalid_payload',
      'Legacy .xls workbooks are not supported: save the file as .xlsx.',
    );
  }
  if (!startsWith(bytes, ZIP_SIGNATURE)) {
    throw new ConnectorError('invalid_payload', 'The content is not an Excel (.xlsx) workbook.');
  }
  if (limits) {
    checkExpansion('The Excel workbook', bytes.byteLength, zipExpandedBytes(bytes), limits);
    await checkZipEntrySizes(bytes, 'The Excel workbook');
  }
  const { Workbook } = await loadExcel();
  const book = new Workbook();
  try {
    await book.xlsx.load(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer,
    );
  } catch (error) {
    throw new ConnectorError(
      'invalid_payload',
      `The Excel workbook cannot be read: ${(error as Error).message}`,
    );
  }
  return { book, sheets: book.worksheets.map((sheet) => sheet.name) };
}

/** The sheet by name or 0-based index (default the first); a missing one → not_found naming the sheets. */
export function pickSheet(workbook: Workbook, sheet: string | number | undefined): Worksheet {
  const sheets = workbook.book.worksheets;
  const found =
    sheet === undefined
      ? sheets[0]
      : typeof sheet === 'number'
        ? sheets[sheet]
        : sheets.find((s) => s.name === sheet);
  if (!found) {
    const names = workbook.sheets.map((name) => `"${name}"`).join(', ');
    throw new ConnectorError(
      'not_found',
      `Sheet ${JSON.stringify(sheet ?? 0)} not found; the workbook has ${names}.`,
    );
  }
  return found;
}

/** The sheet's rows as records: the first non-empty row names the columns. */
export function sheetRecords(worksheet: Worksheet, limits?: ParseLimits): ParsedRecord[] {
  if (limits) {
    if (worksheet.columnCount > limits.maxColumns) throw tooManyColumns(worksheet.columnCount, limits);
    checkCells(worksheet.rowCount * worksheet.columnCount, limits);
  }
  let columns: string[] | undefined;
  const records: ParsedRecord[] = [];
  worksheet.eachRow({ includeEmpty: false }, (row) => {
    const values = (row.values as unknown[]).slice(1).map(cellValue);
    if (!columns) {
      columns = columnNames(
        values.map((v) =>
          v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string),
        ),
      );
      return;
    }
    const record = emptyRecord();
    const width = Math.max(columns.length, values.length);
    for (let i = 0; i < width; i += 1) {
      if (i >= columns.length) columns.push(`column_${i + 1}`);
      record[columns[i]] = values[i] ?? null;
    }
    records.push(record);
  });
  return records;
}

/** A cell's plain value: formula results, rich text and hyperlinks reduced to what the sheet shows. */
export function cellValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || typeof value !== 'object') return toCell(value);
  const cell = value as Record<string, unknown>;
  if ('result' in cell) return cellValue(cell.result);
  if ('formula' in cell || 'sharedFormula' in cell) return null;
  if (Array.isArray(cell.richText))
    return (cell.richText as { text: string }[]).map((part) => part.text).join('');
  if (typeof cell.text === 'string') return cell.text;
  if ('error' in cell) return null;
  return JSON.stringify(cell);
}
