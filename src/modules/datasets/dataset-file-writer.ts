import { rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import {
  DatasetBuildOptions,
  openBuildInstance,
  publishBuild,
  removeBuildFiles,
  syncFile,
  writeLayoutMeta,
} from './dataset-build-files';
import { isTextTable, RowBatch, TextTable } from '../connectors/connectors.types';
import { ColumnProfile, ColumnSchema } from './column-profile';
import { DATA_TABLE, quoteIdentifier, ROW_COLUMN } from './sql-identifiers';
import { ColumnNamer } from './column-names';
import { KIND_INTEGER, KIND_BOOLEAN, StoredValue, ValueClassifier } from './value-kinds';
import { duckMessage } from './readonly-database';
import { storeColumn } from './dataset-store-layout';

export const MAX_COLUMNS = 1000;

const CELLS_PER_FLUSH = 1 << 16;

export class DatasetShapeError extends Error {}

/** Not a failure of the daemon's database, whatever its code says: the connect ends `failed`, or 507. */
export class DatasetFileError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface WrittenDataset {
  readonly rowCount: number;
  readonly columns: readonly ColumnSchema[];
  readonly bytes: number;
}

const enum Held {
  Nothing = 0,
  BigInt = 1,
  Double = 2,
  Varchar = 3,
}

const HELD_SQL = ['varchar', 'bigint', 'double', 'varchar'] as const;

interface ColumnSlot {
  readonly key: string;
  readonly profile: ColumnProfile;
  held: Held;
}

/** Columns are held in the narrowest type their values so far allow and only widen (docs/datasets.md). */
export class DatasetFileWriter {
  private readonly classifier = new ValueClassifier();
  private readonly slots: ColumnSlot[] = [];
  private readonly byKey = new Map<string, ColumnSlot>();
  private readonly names = new ColumnNamer();
  private rowCount = 0;
  private appended = 0;
  private readonly values: StoredValue[] = [];
  private readonly integers: boolean[] = [];
  private appender: DuckDBAppender | undefined;
  private readonly declared = new Map<ColumnSlot, Held>();
  private closed = false;

  private constructor(
    private readonly partialPath: string,
    private readonly finalPath: string,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  static async create(finalPath: string, options: DatasetBuildOptions): Promise<DatasetFileWriter> {
    const partialPath = `${finalPath}.partial`;
    let instance: DuckDBInstance;
    try {
      instance = await openBuildInstance(partialPath, options);
    } catch (error) {
      throw duckError(error);
    }
    const writer = new DatasetFileWriter(partialPath, finalPath, instance, await instance.connect());
    try {
      await writer.exec(`create table ${DATA_TABLE} (${quoteIdentifier(ROW_COLUMN)} bigint not null)`);
    } catch (error) {
      await writer.abort();
      throw error;
    }
    return writer;
  }

  get rows(): number {
    return this.rowCount;
  }

  async addBatch(batch: RowBatch | readonly Record<string, unknown>[]): Promise<void> {
    if (this.closed) throw new DatasetFileError('The dataset writer is closed.');
    if (isTextTable(batch)) await this.addTable(batch);
    else await this.addRecords(batch);
    if (this.values.length >= CELLS_PER_FLUSH) await this.appendBuffered();
  }

  /** A text table's cells are read in place: no record per row, and a column given twice keeps its last cell. */
  private async addTable(table: TextTable): Promise<void> {
    if (table.rows === 0) return;
    const cellOf = new Map<string, number>();
    for (let index = 0; index < table.columns.length; index++) {
      const name = table.columns[index];
      if (!this.byKey.has(name)) await this.addColumn(name);
      cellOf.set(name, index);
    }
    const slots = this.slots;
    const width = slots.length;
    const cells = slots.map((slot) => cellOf.get(slot.key) ?? -1);
    const tableWidth = table.columns.length;
    const { text, ends } = table;
    const classifier = this.classifier;
    for (let row = 0, base = 0; row < table.rows; row++, base += tableWidth) {
      for (let i = 0; i < width; i++) {
        const cell = cells[i];
        let value: StoredValue;
        if (cell >= 0) {
          const at = base + cell;
          value = classifier.convertRange(text, at === 0 ? 0 : ends[at - 1], ends[at]);
        } else {
          value = classifier.convert(null);
        }
        this.buffer(slots[i], slots[i].profile.record(value));
      }
      this.rowCount++;
    }
  }

  private async addRecords(rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    for (const row of rows) {
      for (const key in row) {
        if (!this.byKey.has(key)) await this.addColumn(key);
      }
    }
    const slots = this.slots;
    const width = slots.length;
    for (const row of rows) {
      for (let i = 0; i < width; i++) this.buffer(slots[i], slots[i].profile.observe(row[slots[i].key]));
      this.rowCount++;
    }
  }

  private buffer(slot: ColumnSlot, value: StoredValue): void {
    const kind = this.classifier.kind;
    const integer = kind === KIND_INTEGER || kind === KIND_BOOLEAN;
    this.values.push(value);
    this.integers.push(integer);
    if (value === null) return;
    const needed = typeof value === 'string' ? Held.Varchar : integer ? Held.BigInt : Held.Double;
    if (needed > slot.held) slot.held = needed;
  }

  private async appendBuffered(): Promise<void> {
    const width = this.slots.length;
    const rows = width === 0 ? 0 : this.values.length / width;
    if (rows === 0) return;
    await this.applyHeldTypes();
    const appender = (this.appender ??= await this.connection.createAppender(DATA_TABLE));
    const slots = this.slots;
    const { values, integers } = this;
    try {
      for (let row = 0, cell = 0; row < rows; row++) {
        appender.appendBigInt(BigInt(this.appended + row + 1));
        for (let i = 0; i < width; i++, cell++) {
          const value = values[cell];
          if (value === null) appender.appendNull();
          else if (typeof value === 'string') appender.appendVarchar(value);
          else if (slots[i].held === Held.Varchar) appender.appendVarchar(String(value));
          else if (slots[i].held === Held.Double || !integers[cell]) appender.appendDouble(value);
          else appender.appendBigInt(BigInt(value));
        }
        appender.endRow();
      }
      appender.flushSync();
    } catch (error) {
      throw duckError(error);
    }
    this.appended += rows;
    values.length = 0;
    integers.length = 0;
  }

  private async applyHeldTypes(): Promise<void> {
    const changes = this.slots.filter(
      (slot) => slot.held !== Held.Nothing && this.declared.get(slot) !== slot.held,
    );
    if (changes.length === 0) return;
    this.closeAppender();
    for (const slot of changes) {
      await this.exec(
        `alter table ${DATA_TABLE} alter ${quoteIdentifier(slot.profile.name)} type ${HELD_SQL[slot.held]}`,
      );
      this.declared.set(slot, slot.held);
    }
  }

  private closeAppender(): void {
    const appender = this.appender;
    this.appender = undefined;
    if (!appender) return;
    try {
      appender.closeSync();
    } catch (error) {
      throw duckError(error);
    }
  }

  async finish(): Promise<WrittenDataset> {
    await this.appendBuffered();
    this.closeAppender();
    const columns: ColumnSchema[] = [];
    const statements = { one: (sql: string) => this.one(sql), run: (sql: string) => this.exec(sql) };
    for (const slot of this.slots) {
      const profile = slot.profile;
      const column = quoteIdentifier(profile.name);
      const schema = profile.toSchema(this.rowCount);
      const loadedAs = slot.held === Held.Nothing ? undefined : HELD_SQL[slot.held];
      await storeColumn(
        statements,
        { ...schema, empty: slot.held === Held.Nothing },
        this.rowCount,
        loadedAs,
      );
      if (!profile.needsTextFixup) {
        columns.push(schema);
        continue;
      }
      const bounds = await this.one(
        `select min(${column})::varchar as min, max(${column})::varchar as max from ${DATA_TABLE}`,
      );
      columns.push(
        profile.toSchema(this.rowCount, {
          min: (bounds.min as string | null) ?? null,
          max: (bounds.max as string | null) ?? null,
        }),
      );
    }
    await writeLayoutMeta((sql) => this.exec(sql));
    await this.exec('checkpoint');
    this.close();
    const bytes = publishVersion(this.partialPath, this.finalPath);
    return { rowCount: this.rowCount, columns, bytes };
  }

  abort(): Promise<void> {
    try {
      this.close();
    } catch {
      // The file is dropped whatever state DuckDB was left in.
    }
    removeBuildFiles(this.partialPath);
    return Promise.resolve();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.appender?.closeSync();
    } finally {
      this.appender = undefined;
      this.connection.closeSync();
      this.instance.closeSync();
    }
  }

  private async exec(sql: string): Promise<void> {
    try {
      await this.connection.run(sql);
    } catch (error) {
      throw duckError(error);
    }
  }

  private async one(sql: string): Promise<Record<string, unknown>> {
    try {
      const reader = await this.connection.runAndReadAll(sql);
      return reader.getRowObjectsJS()[0];
    } catch (error) {
      throw duckError(error);
    }
  }

  private async addColumn(key: string): Promise<void> {
    if (this.slots.length >= MAX_COLUMNS) {
      throw new DatasetShapeError(`The source has more than ${MAX_COLUMNS} columns.`);
    }
    const name = this.names.nameOf(key);
    // Rows buffered so far have no cell for it: they go out first, and the column is null on them.
    await this.appendBuffered();
    this.closeAppender();
    const slot: ColumnSlot = {
      key,
      profile: new ColumnProfile(name, this.classifier, this.rowCount),
      held: Held.Nothing,
    };
    await this.exec(`alter table ${DATA_TABLE} add column ${quoteIdentifier(name)} varchar`);
    this.declared.set(slot, Held.Varchar);
    this.slots.push(slot);
    this.byKey.set(key, slot);
  }
}

export function publishVersion(partialPath: string, finalPath: string): number {
  try {
    publishBuild(partialPath, finalPath);
  } catch (error) {
    throw fileError(error);
  }
  try {
    // Until the directory is synced the rename may not survive a crash: a failed sync publishes nothing.
    syncFile(dirname(finalPath));
    return statSync(finalPath).size;
  } catch (error) {
    rmSync(finalPath, { force: true });
    throw fileError(error);
  }
}

/** DuckDB reports a full disk in its message only; the errno is recovered so it is answered 507. */
export function duckError(error: unknown): DatasetFileError {
  if (error instanceof DatasetFileError) return error;
  const message = duckMessage(error) || String(error);
  const code = /No space left on device/i.test(message) ? 'ENOSPC' : undefined;
  // DuckDB's messages name the file: the client must not learn the data dir's paths.
  const first = message.split('\n')[0].replace(/"\/[^"]*"/g, '"<dataset file>"');
  return new DatasetFileError(`Writing the dataset file failed: ${first}`, code);
}

/**
 * A failed sync or rename of the dataset's file, its errno kept (ENOSPC is answered 507). The message names the errno
 * only: Node's would name the data dir's paths to the client.
 */
function fileError(error: unknown): DatasetFileError {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string'
    ? new DatasetFileError(`Writing the dataset file failed: ${code}.`, code)
    : new DatasetFileError(`Writing the dataset file failed: ${String(error)}`);
}
