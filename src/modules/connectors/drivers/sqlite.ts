import { open as openFile } from 'node:fs/promises';
import sqlite3 from 'sqlite3';
import { SqliteConfig } from '../connector-config';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { confinedFile } from '../local-path';
import { errorMessage } from '../network-errors';
import { quoteIdent, sqlRecord } from './sql-common';
import { defineConnector } from '../connector-descriptor';
import { compact, ConfigString, ConnectorConfig } from '../config-fields';

const SQLITE_HEADER = 'SQLite format 3\0';

const WINDOW_BATCHES = 8;

type Row = Record<string, unknown>;

export function sqlitePath(config: SqliteConfig): string {
  if (config.path) return config.path;
  const dsn = config.connection_string ?? '';
  const match = /^sqlite(?:\+\w+)?:\/\/\/(.*)$/i.exec(dsn);
  if (!match || match[1] === '')
    throw new ConnectorError('invalid_config', 'connection_string must look like sqlite:///path/to/file.db.');
  return match[1].split('?')[0];
}

class SourceFile {
  private constructor(private readonly db: sqlite3.Database) {}

  static open(path: string): Promise<SourceFile> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) =>
        error ? reject(error) : resolve(new SourceFile(db)),
      );
    });
  }

  all<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as T[])));
    });
  }

  run(sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.db.run(sql, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }
}

async function openDatabase(
  config: SqliteConfig,
  ctx: DriverContext,
): Promise<{ db: SourceFile; label: string }> {
  const requested = sqlitePath(config);
  const path = await confinedFile(ctx.imports, requested, 'path');
  const handle = await openFile(path, 'r');
  try {
    const header = Buffer.alloc(16);
    await handle.read(header, 0, 16, 0);
    if (header.toString('latin1') !== SQLITE_HEADER) {
      throw new ConnectorError('invalid_payload', `${requested} is not an SQLite database.`);
    }
  } finally {
    await handle.close();
  }
  try {
    // Opened read-only: the file is never written, while the selection's temp view (in memory) can be made.
    return { db: await SourceFile.open(path), label: requested };
  } catch (error) {
    throw new ConnectorError('invalid_payload', `${requested} cannot be opened: ${messageOf(error)}`);
  }
}

/** node-sqlite3's errors may come from another realm (under jest), so no instanceof Error. */
function messageOf(error: unknown): string {
  const message =
    typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return (typeof message === 'string' ? message : errorMessage(error)).replace(/^SQLITE_\w+: /, '');
}

function classify(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const message = messageOf(error);
  if (/no such table/i.test(message)) return new ConnectorError('not_found', message);
  if (/readonly|read-only|query_only/i.test(message))
    return new ConnectorError('invalid_config', `Only read-only queries are allowed: ${message}`);
  if (/syntax error|no such column|incomplete input/i.test(message))
    return new ConnectorError('invalid_config', `The query is invalid: ${message}`);
  if (/file is not a database|malformed/i.test(message))
    return new ConnectorError('invalid_payload', message);
  return new ConnectorError('driver_error', message);
}

async function listTables(db: SourceFile): Promise<BrowseItem[]> {
  const tables = await db.all<{ name: string; type: string }>(
    "select name, type from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%' order by name",
  );
  const items: BrowseItem[] = [];
  for (const table of tables) {
    const columns = await db.all<{ name: string; type: string }>(
      'select name, type from pragma_table_info(?)',
      [table.name],
    );
    items.push({
      name: table.name,
      kind: table.type,
      columns: columns.map((c) => ({ name: c.name, type: c.type || 'ANY' })),
    });
  }
  return items;
}

/** Whether `sql` holds a second statement (node-sqlite3 would silently drop it). */
export function hasSecondStatement(sql: string): boolean {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      i = sql.indexOf(close, i + 1);
      if (i < 0) return false;
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === ';') {
      return sql.slice(i + 1).replace(/--[^\n]*|\/\*[\s\S]*?\*\/|[\s;]/g, '') !== '';
    } else {
      i++;
    }
  }
  return false;
}

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** The selection as a temp view (a view can only be a SELECT: the read-only check), integers past 2^53 as text. */
async function selectionQuery(
  db: SourceFile,
  selection: RowSelection,
): Promise<{ query: string; shaped: ReadonlySet<string> }> {
  let source: string;
  if (selection.query !== undefined && selection.query.trim() !== '') {
    source = selection.query.trim().replace(/;\s*$/, '');
    if (hasSecondStatement(source)) {
      throw new ConnectorError('invalid_config', 'Only one read-only SELECT statement is allowed.');
    }
  } else if (selection.table) {
    source = `select * from ${quoteIdent(selection.table, 'ansi')}`;
  } else {
    throw new ConnectorError('invalid_config', 'A table or a read-only query is required to read rows.');
  }
  try {
    await db.run(`create temp view selection as ${source}`);
  } catch (error) {
    const message = messageOf(error);
    if (/syntax error|incomplete input/i.test(message) && !/^\s*(select|with|values)\b/i.test(source)) {
      throw new ConnectorError('invalid_config', 'Only one read-only SELECT statement is allowed.');
    }
    throw error;
  }
  const columns = await db.all<{ name: string; type: string }>(
    'select name, type from pragma_table_info(?, ?)',
    ['selection', 'temp'],
  );
  const exact = columns.map(({ name }) => {
    const column = quoteIdent(name, 'ansi');
    return `case when typeof(${column}) = 'integer' and (${column} > ${SAFE_INTEGER} or ${column} < -${SAFE_INTEGER}) then cast(${column} as text) else ${column} end as ${column}`;
  });
  return {
    query: `select ${exact.join(', ')} from temp.selection`,
    shaped: new Set(columns.filter(({ type }) => !hasTextAffinity(type)).map(({ name }) => name)),
  };
}

function hasTextAffinity(declared: string): boolean {
  return !/INT/i.test(declared) && /CHAR|CLOB|TEXT/i.test(declared);
}

export const sqliteDriver: ConnectorDriver<SqliteConfig> = {
  async test(config, ctx) {
    const { db, label } = await openDatabase(config, ctx);
    try {
      const tables = await listTables(db);
      return {
        message: `Opened ${label} read-only: ${tables.length} table(s) and view(s).`,
        details: { tables: tables.length },
      };
    } catch (error) {
      throw classify(error);
    } finally {
      await db.close();
    }
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const { db, label } = await openDatabase(config, ctx);
    try {
      const items = await listTables(db);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s) in ${label}.`,
        discovery: { path: label },
      };
    } catch (error) {
      throw classify(error);
    } finally {
      await db.close();
    }
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const { db } = await openDatabase(config, ctx);
      try {
        const { query, shaped } = await selectionQuery(db, selection);
        // Windows of the selection, read whole: node-sqlite3 streams no rows on demand, and a window is re-read
        // from its offset by SQLite (same file, same plan, same order).
        const window = ctx.batchSize * WINDOW_BATCHES;
        for (let offset = 0; ; offset += window) {
          const page = await db.all(`${query} limit ? offset ?`, [window, offset]);
          for (let start = 0; start < page.length; start += ctx.batchSize) {
            yield page.slice(start, start + ctx.batchSize).map((row) => sqlRecord(row, shaped));
          }
          if (page.length < window) break;
        }
      } catch (error) {
        throw classify(error);
      } finally {
        await db.close();
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

export class SqliteConnectorConfig extends ConnectorConfig<SqliteConfig> {
  @ConfigString<SqliteConnectorConfig>({
    checks: [
      (path, config) =>
        !path && !config.connection_string ? 'is required (or connection_string)' : undefined,
    ],
    description: 'A database file inside the import directory; required without connection_string.',
  })
  path?: string;

  @ConfigString({ description: 'sqlite:///<path>, inside the import directory.' })
  connection_string?: string;

  toConfig(): SqliteConfig {
    return compact({ path: this.path, connection_string: this.connection_string });
  }
}

export const sqliteConnector = defineConnector({
  name: 'sqlite',
  family: 'sql',
  config: SqliteConnectorConfig,
  destinationFields: [],
  driver: sqliteDriver,
});
