import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { FileType, inferFileType } from '../file-types';
import { readFileRecordsInThread } from '../formats/parse-thread';
import { readFileInThread } from './file';

/**
 * A data file found inside a source that holds many files (a git repository, an archive), read with the same
 * formats and limits as file connectors. Its type comes from its extension.
 */
export interface DataFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export function dataFileType(name: string): FileType {
  const type = inferFileType(name);
  if (type === undefined) {
    throw new ConnectorError(
      'invalid_config',
      `${name} is not a data file: name a .csv, .tsv, .json, .jsonl, .xlsx, .xls or .parquet file.`,
    );
  }
  return type;
}

export async function* readDataFile(
  file: DataFile,
  ctx: DriverContext,
): AsyncGenerator<Record<string, unknown>[]> {
  yield* readFileInThread(
    readFileRecordsInThread,
    { kind: 'bytes', bytes: file.bytes },
    { fileType: dataFileType(file.name) },
    ctx,
  );
}

export function fileEntry(path: string, size?: number): BrowseItem {
  const type = inferFileType(path);
  return { name: path, kind: 'file', ...(type ? { type } : {}), ...(size !== undefined ? { size } : {}) };
}

/** Refuses a file bigger than what one parse may decompress, before it is parsed. */
export function assertParseableSize(name: string, size: number, ctx: DriverContext): void {
  if (size > ctx.parseLimits.maxDecompressedBytes) {
    throw new ConnectorError(
      'invalid_payload',
      `${name} is ${size} bytes, more than one read may parse (${ctx.parseLimits.maxDecompressedBytes}).`,
    );
  }
}

/** A repository- or archive-relative path as given: no leading `/`, no `..` or empty segments. */
export function innerPath(path: string | undefined, field = 'path'): string {
  const trimmed = (path ?? '').trim().replace(/^\.\/+/, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || segments.some((s) => s === '' || s === '.' || s === '..') || trimmed.includes('\0')) {
    throw new ConnectorError(
      'path_not_allowed',
      `${field} must be a relative path inside the repository or archive, without "..", such as data/sales.csv.`,
    );
  }
  return trimmed;
}
