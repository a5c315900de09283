import { exceedsJsonDepth } from '../../../common/http/json-depth';
import { ConnectorError } from '../connector-error';
import { parseExactJson } from './exact-json';
import { CollisionLog, flattenRecord, getPath, isPlainObject, ParsedRecord } from './records';

/** Keys under which a top-level object usually wraps its records array. */
export const WRAPPER_KEYS = ['data', 'records', 'rows', 'results', 'items', 'value'] as const;

/** Deeper JSON is refused before it is parsed: flattening and storing its values recurse once per level. */
export const MAX_JSON_NESTING = 512;

export function checkJsonNesting(bytes: Uint8Array, what: string): void {
  if (exceedsJsonDepth(bytes, MAX_JSON_NESTING)) {
    throw new ConnectorError(
      'invalid_payload',
      `${what} nests objects and arrays deeper than ${MAX_JSON_NESTING} levels.`,
    );
  }
}

export function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new ConnectorError('invalid_payload', 'Invalid JSON: the content is empty.');
  checkJsonNesting(Buffer.from(trimmed, 'utf8'), 'The JSON content');
  try {
    return parseExactJson(trimmed);
  } catch (error) {
    const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== '');
    if (lines.length > 1) {
      try {
        return lines.map((line) => parseExactJson(line));
      } catch {
        // Not JSON Lines either: report the original parse error.
      }
    }
    throw new ConnectorError('invalid_payload', `Invalid JSON: ${(error as Error).message}`);
  }
}

/** The records array: `jsonPath`, a top-level array, the first wrapper key's array, else the object as one record. */
export function locateRecords(value: unknown, jsonPath?: string, what = 'json_path'): unknown[] {
  if (jsonPath !== undefined && jsonPath.trim() !== '') {
    const found = getPath(value, jsonPath);
    if (!Array.isArray(found)) {
      throw new ConnectorError(
        'invalid_payload',
        `Invalid JSON: ${what} "${jsonPath}" does not reach a records array.`,
      );
    }
    return found;
  }
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) {
    for (const key of WRAPPER_KEYS) if (Array.isArray(value[key])) return value[key] as unknown[];
    return [value];
  }
  throw new ConnectorError('invalid_payload', 'Invalid JSON: expected an array of records or an object.');
}

export function toFlatRecords(items: readonly unknown[], collisions: CollisionLog): ParsedRecord[] {
  return items.map((item) => {
    if (!isPlainObject(item)) return { value: flattenRecord({ value: item }).record.value };
    const flat = flattenRecord(item);
    collisions.add(flat.collisions);
    return flat.record;
  });
}
