import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { isTextTable, RowBatch, TextTable } from '../connectors/connectors.types';
import { ColumnProfile, ColumnSchema } from './column-profile';
import { DATA_TABLE, identifierKey, quoteIdentifier, ROW_COLUMN } from './sql-identifiers';
import { KIND_INTEGER, StoredValue, ValueClassifier } from './value-kinds';
import {
  PackedRows,
  startWriteWorker,
  TAG_INTEGER,
  TAG_NULL,
  TAG_REAL,
  TAG_TEXT,
  TextFixup,
  WriterReply,
  WriterRequest,
} from './dataset-write-worker';

export const MAX_COLUMNS = 1000;
const MAX_NAME_LENGTH = 200;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

const ROWS_PER_GROUP = 64;
/** Below SQLite's default limit of 32766 bound parameters per statement. */
const MAX_PARAMETERS = 30_000;
/**
 * Values per message to the writer thread. Posting costs a fixed fraction of a millisecond, so messages are not
 * small; but the text values of a message live until it is posted, and bigger messages let them outlive young
 * collections, which grows the heap (1 << 17 peaked 100 MB higher than this on a 1M-row CSV).
 */
const CELLS_PER_MESSAGE = 1 << 14;
/** Messages posted to the writer thread and not yet written; beyond it the source waits (bounded memory). */
const MAX_IN_FLIGHT = 3;

export class DatasetShapeError extends Error {}

/**
 * Writing the dataset's own file failed (its SQLite code or errno in `code`): the data connect ends `failed`, or 507
 * for a full disk. Not a failure of the daemon's database, whatever its code says.
 */
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

interface TextBounds {
  readonly min: string | null;
  readonly max: string | null;
}

interface ColumnSlot {
  readonly key: string;
  readonly profile: ColumnProfile;
}

/**
 * Builds one dataset version's SQLite file from row batches, streaming: nothing but running column statistics and a
 * few batches in flight are kept in memory. Rows are converted and profiled on the calling thread while a writer
 * thread inserts the previous batches (each in its own transaction), so parsing and SQLite work overlap. The file is
 * built under a temporary name with journaling off (a crash leaves only a partial file to delete), then made
 * durable, renamed into place and left read-only.
 */
export class DatasetFileWriter {
  private readonly worker: Worker;
  private readonly classifier = new ValueClassifier();
  private readonly slots: ColumnSlot[] = [];
  private readonly byKey = new Map<string, ColumnSlot>();
  private readonly usedNames = new Set<string>([identifierKey(ROW_COLUMN)]);
  private rowCount = 0;
  private pending: PendingRows | undefined;
  private inFlight = 0;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private finishing:
    { resolve: (bounds: readonly TextBounds[]) => void; reject: (error: Error) => void } | undefined;
  private closed = false;

  private constructor(
    private readonly partialPath: string,
    private readonly finalPath: string,
  ) {
    rmSync(partialPath, { force: true });
    this.worker = startWriteWorker({
      path: partialPath,
      table: DATA_TABLE,
      maxParameters: MAX_PARAMETERS,
      rowsPerGroup: ROWS_PER_GROUP,
    });
    this.worker.on('message', (reply: WriterReply) => this.onReply(reply));
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`The dataset writer thread stopped (exit code ${code}).`));
    });
    this.send({
      op: 'exec',
      sql: `create table ${DATA_TABLE} (${quoteIdentifier(ROW_COLUMN)} integer primary key)`,
    });
  }

  static create(finalPath: string): DatasetFileWriter {
    return new DatasetFileWriter(`${finalPath}.partial`, finalPath);
  }

  get rows(): number {
    return this.rowCount;
  }

  /** Converts and profiles a batch for the writer thread, and waits only when too many rows are in flight. */
  async addBatch(batch: RowBatch | readonly Record<string, unknown>[]): Promise<void> {
    this.throwIfFailed();
    if (isTextTable(batch)) this.addTable(batch);
    else this.addRecords(batch);
    while (this.inFlight >= MAX_IN_FLIGHT && !this.failure) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    this.throwIfFailed();
  }

  /** A text table's cells are read in place: no record per row, and a column given twice keeps its last cell. */
  private addTable(table: TextTable): void {
    if (table.rows === 0) return;
    const cellOf = new Map<string, number>();
    table.columns.forEach((name, index) => {
      if (!this.byKey.has(name)) this.addColumn(name);
      cellOf.set(name, index);
    });
    const slots = this.slots;
    const width = slots.length;
    const cells = slots.map((slot) => cellOf.get(slot.key) ?? -1);
    const tableWidth = table.columns.length;
    const { text, ends } = table;
    const classifier = this.classifier;
    for (let row = 0, base = 0; row < table.rows; row++, base += tableWidth) {
      const pending = (this.pending ??= new PendingRows(this.rowCount + 1, width));
      for (let i = 0; i < width; i++) {
        const cell = cells[i];
        let value: StoredValue;
        if (cell >= 0) {
          const at = base + cell;
          value = classifier.convertRange(text, at === 0 ? 0 : ends[at - 1], ends[at]);
        } else {
          value = classifier.convert(null);
        }
        pending.push(slots[i].profile.record(value), classifier.kind === KIND_INTEGER);
      }
      this.rowCount++;
      if (++pending.rows === pending.capacity) this.post();
    }
  }

  private addRecords(rows: readonly Record<string, unknown>[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.discoverColumns(row);
    const slots = this.slots;
    const width = slots.length;
    const classifier = this.classifier;
    for (const row of rows) {
      const pending = (this.pending ??= new PendingRows(this.rowCount + 1, width));
      for (let i = 0; i < width; i++) {
        const value = slots[i].profile.observe(row[slots[i].key]);
        pending.push(value, classifier.kind === KIND_INTEGER);
      }
      this.rowCount++;
      if (++pending.rows === pending.capacity) this.post();
    }
  }

  private post(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.inFlight++;
    const request = pending.toRequest();
    this.worker.postMessage(request, [request.tags.buffer, request.numbers.buffer]);
  }

  /** Finishes the file and returns its profile; the writer cannot be used afterwards. */
  async finish(): Promise<WrittenDataset> {
    this.throwIfFailed();
    this.post();
    const fixups: TextFixup[] = [];
    for (const slot of this.slots) {
      if (!slot.profile.needsTextFixup) continue;
      const column = quoteIdentifier(slot.profile.name);
      fixups.push({
        update: `update ${DATA_TABLE} set ${column} = cast(${column} as text) where typeof(${column}) in ('integer', 'real')`,
        bounds: `select min(${column}) as min, max(${column}) as max from ${DATA_TABLE}`,
      });
    }
    const bounds = await new Promise<readonly TextBounds[]>((resolve, reject) => {
      this.finishing = { resolve, reject };
      this.send({ op: 'finish', fixups });
    });
    this.closed = true;
    await this.worker.terminate();
    let fixed = 0;
    const columns = this.slots.map((slot) =>
      slot.profile.needsTextFixup
        ? slot.profile.toSchema(this.rowCount, bounds[fixed++])
        : slot.profile.toSchema(this.rowCount),
    );
    try {
      syncFile(this.partialPath);
      chmodSync(this.partialPath, 0o400);
      renameSync(this.partialPath, this.finalPath);
    } catch (error) {
      throw fileError(error);
    }
    try {
      // Until the directory is synced the rename may not survive a crash: a failed sync publishes nothing.
      syncFile(dirname(this.finalPath));
      const bytes = statSync(this.finalPath).size;
      return { rowCount: this.rowCount, columns, bytes };
    } catch (error) {
      rmSync(this.finalPath, { force: true });
      throw fileError(error);
    }
  }

  /** Stops the writer thread and drops the partial file (after a failed source, for example). */
  async abort(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
    // A write that failed mid-transaction can leave a rollback journal beside the file, journaling off or not.
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(this.partialPath + suffix, { force: true });
  }

  private send(request: WriterRequest): void {
    this.worker.postMessage(request);
  }

  private onReply(reply: WriterReply): void {
    switch (reply.op) {
      case 'written':
        this.inFlight--;
        break;
      case 'finished':
        this.finishing?.resolve(reply.bounds);
        return;
      case 'failed':
        // The SQLite code survives the thread boundary, so a full disk is answered as one (507), not as a bug.
        this.fail(new DatasetFileError(`Writing the dataset file failed: ${reply.message}`, reply.code));
        return;
    }
    this.signal();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.finishing?.reject(this.failure);
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
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
    this.post();
    this.send({ op: 'exec', sql: `alter table ${DATA_TABLE} add column ${quoteIdentifier(name)}` });
    this.slots.push(slot);
    this.byKey.set(key, slot);
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
}

/** Rows being packed for the writer thread: posted when full, and before the columns change. */
class PendingRows {
  rows = 0;
  readonly capacity: number;
  private cell = 0;
  private readonly tags: Uint8Array<ArrayBuffer>;
  private readonly numbers: Float64Array<ArrayBuffer>;
  private readonly texts: string[] = [];

  constructor(
    private readonly first: number,
    private readonly width: number,
  ) {
    this.capacity = Math.max(1, Math.floor(CELLS_PER_MESSAGE / Math.max(1, width)));
    this.tags = new Uint8Array(this.capacity * width);
    this.numbers = new Float64Array(this.capacity * width);
  }

  push(value: StoredValue, isInteger: boolean): void {
    const cell = this.cell++;
    if (value === null) this.tags[cell] = TAG_NULL;
    else if (typeof value === 'number') {
      this.tags[cell] = isInteger ? TAG_INTEGER : TAG_REAL;
      this.numbers[cell] = value;
    } else {
      this.tags[cell] = TAG_TEXT;
      this.numbers[cell] = value.length;
      this.texts.push(value);
    }
  }

  toRequest(): PackedRows {
    return {
      op: 'rows',
      first: this.first,
      rows: this.rows,
      width: this.width,
      tags: this.tags.subarray(0, this.cell),
      numbers: this.numbers.subarray(0, this.cell),
      text: this.texts.join(''),
    };
  }
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

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
