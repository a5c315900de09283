export type ParsedRecord = Record<string, unknown>;

/**
 * An empty record with no prototype: column names come from files, and on a plain object a `__proto__` column would
 * replace the prototype (dropping the column, or injecting the inherited keys as columns) instead of being stored.
 */
export function emptyRecord(): ParsedRecord {
  return Object.create(null) as ParsedRecord;
}

/** Declared text (a PostgreSQL `text` column) stays text; only untyped sources' text is read by its shape. */
export class DeclaredText {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/**
 * Turns a value from any parser into a JSON-safe cell: integers beyond 2^53 stay exact as strings, dates become
 * RFC 3339 strings, bytes become base64.
 */
export function toCell(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value))
    return value.map((item) => (isPlainObject(item) ? flattenRecord(item).record : toCell(item)));
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export interface Flattened {
  readonly record: ParsedRecord;
  /** Dotted keys produced twice (`{"a.b": 1, "a": {"b": 2}}`); the first value is kept. */
  readonly collisions: readonly string[];
}

/** Flattens nested objects into dotted keys (`{"a": {"b": 1}}` → `{"a.b": 1}`); arrays stay values. */
export function flattenRecord(source: Record<string, unknown>): Flattened {
  const record = emptyRecord();
  const collisions: string[] = [];
  const visit = (value: Record<string, unknown>, prefix: string): void => {
    for (const [key, item] of Object.entries(value)) {
      const name = prefix === '' ? key : `${prefix}.${key}`;
      if (isPlainObject(item) && Object.keys(item).length > 0) {
        visit(item, name);
        continue;
      }
      if (Object.prototype.hasOwnProperty.call(record, name)) {
        collisions.push(name);
        continue;
      }
      record[name] = isPlainObject(item) ? null : toCell(item);
    }
  };
  visit(source, '');
  return { record, collisions };
}

export class CollisionLog {
  private readonly names = new Set<string>();

  add(collisions: readonly string[]): void {
    for (const name of collisions) this.names.add(name);
  }

  get keys(): readonly string[] {
    return [...this.names];
  }

  message(): string | undefined {
    if (this.names.size === 0) return undefined;
    const shown = [...this.names].slice(0, 10).join(', ');
    return `${this.names.size} flattened key collision(s), first value kept: ${shown}`;
  }
}

export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split('.').filter((s) => s !== '')) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment))
      current = (current as Record<string, unknown>)[segment];
    else return undefined;
  }
  return current;
}

/** CSV rows packed for the trip from the parse thread: one string and one array per batch, not an object per row. */
export interface TextTable {
  /** Column names in order; a name given twice keeps the value of its last cell, as a record would. */
  readonly columns: readonly string[];
  readonly rows: number;
  readonly text: string;
  /** Where each cell ends in `text`: cell i (row i / width, column i % width) spans ends[i - 1]..ends[i]; an empty
   * cell is null. */
  readonly ends: Uint32Array<ArrayBuffer>;
}

export type RowBatch = ParsedRecord[] | TextTable;

export function isTextTable(batch: TextTable | readonly ParsedRecord[]): batch is TextTable {
  return !Array.isArray(batch);
}

export function batchRows(batch: RowBatch): number {
  return isTextTable(batch) ? batch.rows : batch.length;
}

export function headOfBatch(batch: RowBatch, rows: number): RowBatch {
  if (!isTextTable(batch)) return batch.slice(0, rows);
  const cells = rows * batch.columns.length;
  return {
    columns: batch.columns,
    rows,
    text: batch.text.slice(0, cells === 0 ? 0 : batch.ends[cells - 1]),
    ends: batch.ends.slice(0, cells),
  };
}
