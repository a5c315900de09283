import type { Configuration } from '@mikro-orm/core';
import { AbstractSqlDriver, SqliteKnexDialect } from '@mikro-orm/knex';
import { SqliteConnection, SqlitePlatform } from '@mikro-orm/sqlite';
import type { Database, Statement } from 'sqlite3';
import { LRUCache } from 'lru-cache';

/**
 * The ORM writes parameters into the SQL text, and SQLite stops reading that text at a NUL byte: a string holding
 * U+0000 failed as "unrecognized token" (a 500 for a label). Such a string is written as the hex of its UTF-8 bytes
 * cast to text, which SQLite stores as the same TEXT value, whole; every other value is escaped as the platform did.
 */
export class SqliteStorePlatform extends SqlitePlatform {
  override escape(value: unknown): string {
    if (typeof value === 'string' && value.includes('\u0000')) {
      return `cast(x'${Buffer.from(value, 'utf8').toString('hex')}' as text)`;
    }
    // The escaper lists an array's items with its own escape; this one lists them so each NUL string is caught.
    if (Array.isArray(value)) {
      return value
        .map((item) => (Array.isArray(item) ? `(${this.escape(item)})` : this.escape(item)))
        .join(', ');
    }
    return super.escape(value);
  }
}

export class SqliteStoreDriver extends AbstractSqlDriver<SqliteConnection, SqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new SqliteStorePlatform(), SqliteConnection, ['knex', 'sqlite3']);
  }
}

/** Statements kept per connection; the least recently used is finalized when another is needed. */
export const KEPT_STATEMENTS = 128;

type Callback = (this: unknown, error: Error | null, result?: unknown) => void;

interface Kept {
  readonly statement: Statement;
  waiting?: Callback[];
}

/**
 * What knex runs a query on: node-sqlite3's `all` and `run`, on statements prepared once per connection and kept.
 * node-sqlite3 would prepare, run and finalize a new statement for each call, three trips to its thread; a text seen
 * before (the ORM's `BEGIN`/`COMMIT`, the repositories' written-out statements with bound values) takes one.
 * Parameters are bound afresh on every run; a statement that fails to prepare fails every call queued on it (node-sqlite3
 * would drop them silently) and is not kept.
 */
export class KeptStatements {
  private readonly kept = new LRUCache<string, Kept>({
    max: KEPT_STATEMENTS,
    // Only what it drops to make room: a failed prepare and finalizeAll let go of their statements themselves.
    // Queued behind any run still pending on it.
    dispose: (dropped, _sql, reason) => {
      if (reason === 'evict') dropped.statement.finalize(() => undefined);
    },
  });

  constructor(private readonly db: Database) {}

  all(sql: string, params: unknown, callback?: Callback): void {
    this.call('all', sql, params, callback);
  }

  run(sql: string, params: unknown, callback?: Callback): void {
    this.call('run', sql, params, callback);
  }

  /** Finalizes every kept statement: SQLite refuses to close a connection that still has one. */
  async finalizeAll(): Promise<void> {
    const statements = [...this.kept.values()].map((entry) => entry.statement);
    this.kept.clear();
    await Promise.all(
      statements.map((statement) => new Promise<void>((done) => statement.finalize(() => done()))),
    );
  }

  private call(method: 'all' | 'run', sql: string, params: unknown, callback?: Callback): void {
    const entry = this.keptFor(sql);
    if (entry.waiting) entry.waiting.push(callback ?? (() => undefined));
    entry.statement[method](params ?? [], callback);
  }

  private keptFor(sql: string): Kept {
    const known = this.kept.get(sql);
    if (known) return known;
    const entry: Kept = {
      statement: this.db.prepare(sql, (error: Error | null) => {
        const waiting = entry.waiting ?? [];
        entry.waiting = undefined;
        if (!error) return;
        if (this.kept.get(sql) === entry) this.kept.delete(sql);
        for (const callback of waiting) callback.call(entry.statement, error);
      }),
      waiting: [],
    };
    this.kept.set(sql, entry);
    return entry;
  }
}

/** Per connection rather than per dialect instance: knex runs a transaction's queries on a copy of the dialect. */
const keptByConnection = new WeakMap<Database, KeptStatements>();

/** Knex takes a dialect class as its `client` (the ORM passes `driverOptions` through); `_query` runs its queries. */
export class StatementKeepingSqliteDialect extends SqliteKnexDialect {
  override _query(connection: Database, obj: unknown): Promise<unknown> {
    let kept = keptByConnection.get(connection);
    if (!kept) {
      kept = new KeptStatements(connection);
      keptByConnection.set(connection, kept);
    }
    return super._query(kept, obj);
  }

  async destroyRawConnection(connection: Database): Promise<void> {
    await keptByConnection.get(connection)?.finalizeAll();
    keptByConnection.delete(connection);
    await (super.destroyRawConnection as (connection: Database) => Promise<void>).call(this, connection);
  }
}
