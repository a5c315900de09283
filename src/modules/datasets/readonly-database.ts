import sqlite3 from 'sqlite3';

export type Row = Record<string, unknown>;

/** SQLite's result code for an interrupted statement, as node-sqlite3 reports it. */
export function isInterrupted(error: unknown): boolean {
  return sqliteCode(error) === 'SQLITE_INTERRUPT';
}

/** The SQLite result code of a driver error; native errors may come from another realm, so no instanceof. */
export function sqliteCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * A read-only connection to dataset files through node-sqlite3: statements run on libuv's thread pool, so a long
 * query never blocks the event loop, and `interrupt()` stops one from a timer.
 */
export class ReadOnlyDatabase {
  private constructor(private readonly db: sqlite3.Database) {}

  static open(file: string): Promise<ReadOnlyDatabase> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => {
        if (error) reject(error);
        else resolve(new ReadOnlyDatabase(db));
      });
    });
  }

  all<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as T[])));
    });
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.db.exec(sql, (error) => (error ? reject(error) : resolve()));
    });
  }

  run(sql: string, params: readonly unknown[] = []): Promise<void> {
    return new Promise((resolve, reject) => {
      this.db.run(sql, params, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Streams rows to `onRow` until it returns false; the statement is then interrupted, so a huge result costs no
   * more than the rows taken. Resolves with whether the statement ran to its end.
   */
  each(sql: string, params: readonly unknown[], onRow: (row: Row) => boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let stopped = false;
      let failure: Error | null = null;
      // node-sqlite3 reports a failing step to the row callback, not always to the completion callback.
      this.db.each(
        sql,
        params,
        (error: Error | null, row: Row) => {
          if (error) {
            failure ??= error;
            return;
          }
          if (stopped) return;
          if (!onRow(row)) {
            stopped = true;
            this.db.interrupt();
          }
        },
        (error: Error | null) => {
          // The failing step's report can arrive just after completion: decide one turn later.
          setImmediate(() => {
            const problem = error ?? failure;
            if (stopped && (!problem || isInterrupted(problem))) resolve(false);
            else if (problem) reject(problem);
            else resolve(true);
          });
        },
      );
    });
  }

  limitAttachedDatabases(count: number): void {
    this.db.configure('limit', sqlite3.LIMIT_ATTACHED, count);
  }

  interrupt(): void {
    this.db.interrupt();
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }
}
