import { Worker } from 'node:worker_threads';

/** How a packed value is bound: SQL null, an INTEGER (from `numbers`), a REAL, or text of `numbers[i]` characters. */
export const TAG_NULL = 0;
export const TAG_INTEGER = 1;
export const TAG_REAL = 2;
export const TAG_TEXT = 3;

/** Rows of one batch packed into two transferable arrays and one string: no per-value structured clone. */
export interface PackedRows {
  readonly op: 'rows';
  /** The ordinal of the first row. */
  readonly first: number;
  readonly rows: number;
  /** Stored columns per row, the ordinal not included. */
  readonly width: number;
  readonly tags: Uint8Array<ArrayBuffer>;
  readonly numbers: Float64Array<ArrayBuffer>;
  /** Every text value of the batch, in order, concatenated. */
  readonly text: string;
}

export type WriterRequest =
  | { readonly op: 'exec'; readonly sql: string }
  | PackedRows
  | { readonly op: 'finish'; readonly fixups: readonly TextFixup[] };

/** A column widened to text: the update that turns its numbers into text, then the query of its new bounds. */
export interface TextFixup {
  readonly update: string;
  readonly bounds: string;
}

export type WriterReply =
  | { readonly op: 'written' }
  | { readonly op: 'finished'; readonly bounds: readonly { min: string | null; max: string | null }[] }
  | { readonly op: 'failed'; readonly message: string; readonly code?: string };

interface WorkerData {
  readonly driver: string;
  readonly path: string;
  readonly table: string;
  readonly maxParameters: number;
  readonly rowsPerGroup: number;
}

interface Port {
  on(event: 'message', listener: (message: WriterRequest) => void): void;
  postMessage(message: WriterReply): void;
}

interface Statement {
  run(values: unknown[]): unknown;
  get(): unknown;
}

interface Connection {
  pragma(sql: string): unknown;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  transaction(work: () => void): () => void;
  close(): void;
}

/**
 * The body of the writer thread, evaluated from its source text (`new Worker(code, { eval: true })`), so it may use
 * nothing from this module's scope: only its arguments. It owns the one better-sqlite3 connection to the partial
 * file and applies requests in order: a failure is reported once and every later request is ignored.
 */
function runWriter(load: (id: string) => unknown, port: Port, data: WorkerData): void {
  const Database = load(data.driver) as new (path: string) => Connection;
  const db = new Database(data.path);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -4096');
  const statements = new Map<number, { group: Statement; groupRows: number; one: Statement }>();
  let failed = false;

  const statementsFor = (width: number): { group: Statement; groupRows: number; one: Statement } => {
    let found = statements.get(width);
    if (!found) {
      const tuple = `(${new Array<string>(width).fill('?').join(', ')})`;
      const groupRows = Math.max(1, Math.min(data.rowsPerGroup, Math.floor(data.maxParameters / width)));
      found = {
        group: db.prepare(
          `insert into ${data.table} values ${new Array<string>(groupRows).fill(tuple).join(', ')}`,
        ),
        groupRows,
        one: db.prepare(`insert into ${data.table} values ${tuple}`),
      };
      statements.set(width, found);
    }
    return found;
  };

  const insert = (batch: PackedRows): void => {
    const width = batch.width + 1;
    const { group, groupRows, one } = statementsFor(width);
    const groupValues = new Array<unknown>(width * groupRows);
    const oneValues = new Array<unknown>(width);
    const { tags, numbers, text } = batch;
    let cell = 0;
    let textAt = 0;
    const fill = (values: unknown[], offset: number, row: number): void => {
      values[offset] = batch.first + row;
      for (let c = 1; c < width; c++, cell++) {
        const tag = tags[cell];
        // better-sqlite3 binds every JS number as a REAL; a BigInt is stored as an INTEGER.
        if (tag === 1) values[offset + c] = BigInt(numbers[cell]);
        else if (tag === 2) values[offset + c] = numbers[cell];
        else if (tag === 3) {
          values[offset + c] = text.slice(textAt, textAt + numbers[cell]);
          textAt += numbers[cell];
        } else values[offset + c] = null;
      }
    };
    db.transaction(() => {
      let row = 0;
      for (; row + groupRows <= batch.rows; row += groupRows) {
        for (let r = 0; r < groupRows; r++) fill(groupValues, r * width, row + r);
        group.run(groupValues);
      }
      for (; row < batch.rows; row++) {
        fill(oneValues, 0, row);
        one.run(oneValues);
      }
    })();
  };

  port.on('message', (request) => {
    if (failed) return;
    try {
      switch (request.op) {
        case 'exec':
          db.exec(request.sql);
          return;
        case 'rows':
          insert(request);
          port.postMessage({ op: 'written' });
          return;
        case 'finish': {
          const bounds = request.fixups.map((fixup) => {
            db.exec(fixup.update);
            return db.prepare(fixup.bounds).get() as { min: string | null; max: string | null };
          });
          db.pragma('journal_mode = DELETE');
          db.close();
          port.postMessage({ op: 'finished', bounds });
          return;
        }
      }
    } catch (error) {
      failed = true;
      const code = (error as { code?: unknown } | null)?.code;
      port.postMessage({
        op: 'failed',
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { code } : {}),
      });
    }
  });
}

/** Starts the writer thread for a partial dataset file. */
export function startWriteWorker(data: Omit<WorkerData, 'driver'>): Worker {
  const source =
    `const { parentPort, workerData } = require('node:worker_threads');\n` +
    `(${runWriter.toString()})(require, parentPort, workerData);\n`;
  return new Worker(source, {
    eval: true,
    // Its garbage is short-lived (one message's values): a small young generation keeps the thread's memory low.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
    workerData: { ...data, driver: require.resolve('better-sqlite3') },
  });
}
