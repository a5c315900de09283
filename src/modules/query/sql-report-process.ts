import { ChildProcess, spawn } from 'node:child_process';

/** One report for a report process: everything it needs, already decided by the daemon. */
export interface ReportRequest {
  readonly op: 'report';
  /** The first file is opened as `main`; each further file is attached under the schema name beside it. */
  readonly files: readonly { readonly path: string; readonly schema: string }[];
  /** Temp views that make the datasets visible under their names. */
  readonly views: readonly string[];
  readonly sql: string;
  readonly maxRows: number;
  readonly maxBytes: number;
}

export type ReportReply =
  | { readonly op: 'ready' }
  | { readonly op: 'refused'; readonly phase: 'prepare'; readonly message: string }
  | { readonly op: 'not_read_only'; readonly reader: boolean }
  | { readonly op: 'failed'; readonly code: string | null; readonly message: string }
  | { readonly op: 'too_large'; readonly rows: number }
  | {
      readonly op: 'rows';
      readonly columns: string[];
      readonly rows: Record<string, unknown>[];
      readonly truncated: boolean;
    };

interface ProcessData {
  readonly betterSqlite: string;
  readonly sqlite3: string;
}

interface Channel {
  on(event: 'message', listener: (message: ReportRequest) => void): void;
  on(event: 'disconnect', listener: () => void): void;
  send(message: ReportReply): void;
  exit(code: number): void;
}

interface PreparedStatement {
  readonly reader: boolean;
  readonly readonly: boolean;
  columns(): { name: string }[];
}

interface SyncDatabase {
  prepare(sql: string): PreparedStatement & { run(...params: unknown[]): unknown };
  exec(sql: string): void;
  close(): void;
}

interface AsyncDatabase {
  run(sql: string, params: unknown[], done: (error: Error | null) => void): void;
  exec(sql: string, done: (error: Error | null) => void): void;
  configure(option: 'limit', id: number, value: number): void;
  prepare(sql: string, done: (error: Error | null) => void): AsyncStatement;
  interrupt(): void;
  close(done: () => void): void;
}

interface AsyncStatement {
  each(
    params: unknown[],
    onRow: (error: Error | null, row: Record<string, unknown>) => void,
    done: (error: Error | null) => void,
  ): void;
  finalize(done: () => void): void;
}

interface Sqlite3Module {
  readonly OPEN_READONLY: number;
  readonly LIMIT_ATTACHED: number;
  readonly LIMIT_LENGTH: number;
  readonly Database: new (file: string, mode: number, done: (error: Error | null) => void) => AsyncDatabase;
}

/**
 * The body of a report process, evaluated from its source text, so it may use nothing from this module's scope:
 * only its arguments. It runs one report at a time, each on fresh connections that are closed afterwards, so
 * nothing of one report is left for the next. Everything it is told is checked by the daemon beforehand; its own
 * job is to let SQLite judge the statement, then stream rows while counting their JSON bytes, stopping the
 * statement at the row or byte cap. SQLite values longer than the byte cap are refused by SQLite itself
 * (SQLITE_LIMIT_LENGTH), so no single value can grow past the cap in memory either.
 */
function runReportProcess(load: (id: string) => unknown, channel: Channel, data: ProcessData): void {
  const Better = load(data.betterSqlite) as new (file: string, options: object) => SyncDatabase;
  const sqlite3 = load(data.sqlite3) as Sqlite3Module;
  const step = (db: AsyncDatabase, sql: string, params: unknown[] = []): Promise<void> =>
    new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));

  const inspect = (request: ReportRequest): ReportReply | string[] => {
    const db = new Better(request.files[0].path, { readonly: true, fileMustExist: true });
    try {
      for (const file of request.files.slice(1)) {
        db.prepare(`attach database ? as "${file.schema}"`).run(file.path);
      }
      for (const view of request.views) db.exec(view);
      let prepared: PreparedStatement;
      try {
        prepared = db.prepare(request.sql);
      } catch (error) {
        return {
          op: 'refused',
          phase: 'prepare',
          message: error instanceof Error ? error.message : String(error),
        };
      }
      if (!prepared.reader || !prepared.readonly) return { op: 'not_read_only', reader: prepared.reader };
      return prepared.columns().map((c) => c.name);
    } finally {
      db.close();
    }
  };

  const execute = async (request: ReportRequest, columns: string[]): Promise<ReportReply> => {
    const db = await new Promise<AsyncDatabase>((resolve, reject) => {
      const opened: AsyncDatabase = new sqlite3.Database(
        request.files[0].path,
        sqlite3.OPEN_READONLY,
        (error) => (error ? reject(error) : resolve(opened)),
      );
    });
    try {
      for (const file of request.files.slice(1)) {
        await step(db, `attach database ? as "${file.schema}"`, [file.path]);
      }
      for (const view of request.views) await step(db, view);
      await step(db, 'pragma query_only = 1');
      db.configure('limit', sqlite3.LIMIT_ATTACHED, 0);
      db.configure('limit', sqlite3.LIMIT_LENGTH, Math.max(1, Math.min(request.maxBytes, 1_000_000_000)));
      const rows: Record<string, unknown>[] = [];
      let bytes = 2;
      let stopped: 'rows' | 'bytes' | null = null;
      let failure: Error | null = null;
      const statement = await new Promise<AsyncStatement>((resolve, reject) => {
        const prepared = db.prepare(request.sql, (error) => (error ? reject(error) : resolve(prepared)));
      });
      // A failing step is reported after the completion callback, by the statement's own work queue: finalize is
      // queued behind it, so once both have answered every row and every error is in.
      await Promise.all([
        new Promise<void>((resolve) => {
          statement.each(
            [],
            (error, row) => {
              if (error) {
                failure ??= error;
                return;
              }
              if (stopped) return;
              if (rows.length >= request.maxRows) {
                stopped = 'rows';
                db.interrupt();
                return;
              }
              bytes += Buffer.byteLength(JSON.stringify(row)) + (rows.length > 0 ? 1 : 0);
              if (bytes > request.maxBytes) {
                stopped = 'bytes';
                db.interrupt();
                return;
              }
              rows.push(row);
            },
            (error) => {
              failure ??= error;
              resolve();
            },
          );
        }),
        new Promise<void>((resolve) => statement.finalize(resolve)),
      ]);
      const problem = failure as (Error & { code?: unknown }) | null;
      if (stopped === 'bytes') return { op: 'too_large', rows: rows.length };
      if (problem && !(stopped === 'rows' && problem.code === 'SQLITE_INTERRUPT')) {
        return {
          op: 'failed',
          code: typeof problem.code === 'string' ? problem.code : null,
          message: problem.message,
        };
      }
      return { op: 'rows', columns, rows, truncated: stopped === 'rows' };
    } finally {
      await new Promise<void>((resolve) => db.close(resolve));
    }
  };

  channel.on('message', (request) => {
    void (async (): Promise<ReportReply> => {
      try {
        const inspected = inspect(request);
        return Array.isArray(inspected) ? await execute(request, inspected) : inspected;
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        return {
          op: 'failed',
          code: typeof code === 'string' ? code : null,
          message: error instanceof Error ? error.message : String(error),
        };
      }
    })().then((reply) => channel.send(reply));
  });
  // Without its daemon nobody waits for the answer: stop at once, even in the middle of a statement.
  channel.on('disconnect', () => channel.exit(0));
  channel.send({ op: 'ready' });
}

/** The process title report processes carry, so an operator can tell them apart in `ps`. */
export const REPORT_PROCESS_TITLE = 'decisiond-sql-report';

/**
 * Starts a report process: a separate Node process with its own libuv thread pool and heap, so a report can
 * neither take the threads the daemon's own storage runs on nor its memory, and killing it stops its CPU work.
 */
export function spawnReportProcess(maxHeapMb: number): ChildProcess {
  const data: ProcessData = {
    betterSqlite: require.resolve('better-sqlite3'),
    sqlite3: require.resolve('sqlite3'),
  };
  const source =
    `process.title = ${JSON.stringify(REPORT_PROCESS_TITLE)};\n` +
    `(${runReportProcess.toString()})(require, process, ${JSON.stringify(data)});\n`;
  return spawn(process.execPath, [`--max-old-space-size=${maxHeapMb}`, '-e', source], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: {},
  });
}
