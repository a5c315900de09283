import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ColumnProfile, ColumnSchema } from './column-profile';
import { DATA_TABLE, identifierKey, quoteIdentifier, ROW_COLUMN } from './sql-identifiers';
import { KIND_INTEGER, StoredValue, ValueClassifier } from './value-kinds';

export const MAX_COLUMNS = 1000;
const MAX_NAME_LENGTH = 200;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

const ROWS_PER_GROUP = 64;
/** Below SQLite's default limit of 32766 bound parameters per statement. */
const MAX_PARAMETERS = 30_000;

export class DatasetShapeError extends Error {}

interface InsertStatements {
  readonly rowsPerGroup: number;
  readonly group: Database.Statement;
  readonly groupValues: (StoredValue | bigint)[];
  readonly one: Database.Statement;
  readonly oneValues: (StoredValue | bigint)[];
}

export interface WrittenDataset {
  readonly rowCount: number;
  readonly columns: readonly ColumnSchema[];
  readonly bytes: number;
}

interface ColumnSlot {
  readonly key: string;
  readonly profile: ColumnProfile;
}

/**
 * Builds one dataset version's SQLite file from row batches, streaming: each batch is inserted in its own
 * transaction and nothing but running column statistics is kept in memory. The file is built under a temporary name
 * with journaling off (a crash leaves only a partial file to delete), then made durable, renamed into place and
 * left read-only.
 */
export class DatasetFileWriter {
  private readonly db: Database.Database;
  private readonly classifier = new ValueClassifier();
  private readonly slots: ColumnSlot[] = [];
  private readonly byKey = new Map<string, ColumnSlot>();
  private readonly usedNames = new Set<string>([identifierKey(ROW_COLUMN)]);
  private insert: InsertStatements | undefined;
  private rowCount = 0;
  private closed = false;

  private constructor(
    private readonly partialPath: string,
    private readonly finalPath: string,
  ) {
    rmSync(partialPath, { force: true });
    this.db = new Database(partialPath);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('locking_mode = EXCLUSIVE');
    this.db.pragma('cache_size = -65536');
    this.db.exec(`create table ${DATA_TABLE} (${quoteIdentifier(ROW_COLUMN)} integer primary key)`);
  }

  static create(finalPath: string): DatasetFileWriter {
    return new DatasetFileWriter(`${finalPath}.partial`, finalPath);
  }

  get rows(): number {
    return this.rowCount;
  }

  addBatch(rows: readonly Record<string, unknown>[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.discoverColumns(row);
    const statements = this.statements();
    const width = this.slots.length + 1;
    const group = statements.rowsPerGroup;
    this.db.transaction(() => {
      let index = 0;
      for (; index + group <= rows.length; index += group) {
        for (let r = 0; r < group; r++) this.fill(rows[index + r], statements.groupValues, r * width);
        statements.group.run(statements.groupValues);
      }
      for (; index < rows.length; index++) {
        this.fill(rows[index], statements.oneValues, 0);
        statements.one.run(statements.oneValues);
      }
    })();
  }

  /** Converts one row into `values` from `offset`: the ordinal, then each column's stored value. */
  private fill(row: Record<string, unknown>, values: (StoredValue | bigint)[], offset: number): void {
    const slots = this.slots;
    const classifier = this.classifier;
    values[offset] = ++this.rowCount;
    for (let i = 0; i < slots.length; i++) {
      const value = slots[i].profile.observe(row[slots[i].key]);
      // better-sqlite3 binds every JS number as a REAL; a BigInt is stored as an INTEGER.
      values[offset + i + 1] = classifier.kind === KIND_INTEGER ? BigInt(value as number) : value;
    }
  }

  /** Finishes the file and returns its profile; the writer cannot be used afterwards. */
  finish(): WrittenDataset {
    const columns = this.slots.map((slot) => {
      const profile = slot.profile;
      if (!profile.needsTextFixup) return profile.toSchema(this.rowCount);
      const column = quoteIdentifier(profile.name);
      this.db.exec(
        `update ${DATA_TABLE} set ${column} = cast(${column} as text) where typeof(${column}) in ('integer', 'real')`,
      );
      const bounds = this.db
        .prepare(`select min(${column}) as min, max(${column}) as max from ${DATA_TABLE}`)
        .get() as { min: string | null; max: string | null };
      return profile.toSchema(this.rowCount, bounds);
    });
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
    this.closed = true;
    syncFile(this.partialPath);
    chmodSync(this.partialPath, 0o400);
    renameSync(this.partialPath, this.finalPath);
    syncFile(dirname(this.finalPath));
    const bytes = statSync(this.finalPath).size;
    return { rowCount: this.rowCount, columns, bytes };
  }

  /** Drops the partial file (after a failed source, for example). */
  abort(): void {
    if (!this.closed) {
      this.db.close();
      this.closed = true;
    }
    rmSync(this.partialPath, { force: true });
  }

  private discoverColumns(row: Record<string, unknown>): void {
    for (const key in row) {
      if (!this.byKey.has(key)) this.addColumn(key);
    }
  }

  private addColumn(key: string): void {
    if (this.slots.length >= MAX_COLUMNS) {
      throw new DatasetShapeError(`The source has more than ${MAX_COLUMNS} columns.`);
    }
    const name = this.uniqueName(key);
    const slot = { key, profile: new ColumnProfile(name, this.classifier, this.rowCount) };
    this.db.exec(`alter table ${DATA_TABLE} add column ${quoteIdentifier(name)}`);
    this.slots.push(slot);
    this.byKey.set(key, slot);
    this.insert = undefined;
  }

  /** SQLite compares column names case-insensitively: a later name that collides gets a numeric suffix. */
  private uniqueName(key: string): string {
    let base = key.replace(CONTROL_CHARACTERS, '_').trim().slice(0, MAX_NAME_LENGTH);
    if (base === '') base = `column_${this.slots.length + 1}`;
    let name = base;
    for (let n = 2; this.usedNames.has(identifierKey(name)); n++) name = `${base}_${n}`;
    this.usedNames.add(identifierKey(name));
    return name;
  }

  /** One statement inserting many rows (fewer calls into SQLite), and one for the rest of a batch. */
  private statements(): InsertStatements {
    if (!this.insert) {
      const width = this.slots.length + 1;
      const tuple = `(${new Array<string>(width).fill('?').join(', ')})`;
      const rowsPerGroup = Math.max(1, Math.min(ROWS_PER_GROUP, Math.floor(MAX_PARAMETERS / width)));
      this.insert = {
        rowsPerGroup,
        group: this.db.prepare(
          `insert into ${DATA_TABLE} values ${new Array<string>(rowsPerGroup).fill(tuple).join(', ')}`,
        ),
        groupValues: new Array<StoredValue | bigint>(width * rowsPerGroup).fill(null),
        one: this.db.prepare(`insert into ${DATA_TABLE} values ${tuple}`),
        oneValues: new Array<StoredValue | bigint>(width).fill(null),
      };
    }
    return this.insert;
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
