import { LruCache } from '../lru-cache';

type Callback = (this: unknown, error: Error | null, result?: unknown) => void;

interface SqliteStatement {
  all(params: unknown, callback?: Callback): unknown;
  run(params: unknown, callback?: Callback): unknown;
  finalize(callback: () => void): unknown;
}

/** The node-sqlite3 `Database` methods knex runs its queries with, and the close it ends a connection with. */
export interface CachingSqliteConnection {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
  all(sql: string, params: unknown, callback?: Callback): unknown;
  run(sql: string, params: unknown, callback?: Callback): unknown;
  close(callback?: (error: Error | null) => void): unknown;
}

/** A kept statement, and while it is being prepared the callbacks of the calls queued on it. */
interface Kept {
  readonly statement: SqliteStatement;
  waiting?: Callback[];
}

/** Statements kept per connection; the least recently used is finalized when another is needed. */
export const CACHED_STATEMENTS = 128;

/**
 * Makes the connection keep the statements the ORM's queries are compiled into. node-sqlite3 prepares, runs and
 * finalizes a new statement for every `all` and `run` on the connection, a trip to its thread and a native object
 * each time; the ORM repeats the same texts (`BEGIN;`, `COMMIT;`, its reads and writes with bound parameters), so a
 * text seen before now runs its prepared statement again. Parameters are bound afresh on every run; a statement that
 * fails to prepare fails its run as before and is not kept. Close finalizes the kept statements first, as SQLite
 * refuses to close a connection that still has one.
 */
export function cacheStatements(connection: CachingSqliteConnection): void {
  const kept = new LruCache<string, Kept>(
    CACHED_STATEMENTS,
    Number.POSITIVE_INFINITY,
    Date.now,
    // Queued behind any run still pending on it.
    (dropped) => dropped.statement.finalize(() => undefined),
  );

  const keptFor = (sql: string): Kept => {
    const known = kept.get(sql);
    if (known) return known;
    // node-sqlite3 drops the calls queued on a statement that never prepared: their callbacks hear it from here.
    const entry: Kept = {
      statement: connection.prepare(sql, (error) => {
        const waiting = entry.waiting ?? [];
        entry.waiting = undefined;
        if (!error) return;
        if (kept.get(sql) === entry) kept.delete(sql);
        for (const callback of waiting) callback.call(entry.statement, error);
      }),
      waiting: [],
    };
    kept.set(sql, entry);
    return entry;
  };

  const call = (method: 'all' | 'run', sql: string, params: unknown, callback?: Callback): unknown => {
    const entry = keptFor(sql);
    if (entry.waiting) entry.waiting.push(callback ?? (() => undefined));
    entry.statement[method](params ?? [], callback);
    return connection;
  };

  const close = connection.close.bind(connection);
  connection.all = (sql, params, callback) => call('all', sql, params, callback);
  connection.run = (sql, params, callback) => call('run', sql, params, callback);
  connection.close = (callback) => {
    const statements = kept.values().map((entry) => entry.statement);
    kept.clear();
    void Promise.all(
      statements.map((statement) => new Promise<void>((done) => statement.finalize(() => done()))),
    ).then(() => close(callback));
    return connection;
  };
}
