import { open as openFile } from 'node:fs/promises';
import Database from 'better-sqlite3';
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

/** `path`, or a `sqlite:///relative` / `sqlite:////absolute` DSN (the path wins when both are set). */
export function sqlitePath(config: SqliteConfig): string {
  if (config.path) return config.path;
  const dsn = config.connection_string ?? '';
  const match = /^sqlite(?:\+\w+)?:\/\/\/(.*)$/i.exec(dsn);
  if (!match || match[1] === '')
    throw new ConnectorError('invalid_config', 'connection_string must look like sqlite:///path/to/file.db.');
  return match[1].split('?')[0];
}

async function openDatabase(
  config: SqliteConfig,
  ctx: DriverContext,
): Promise<{ db: Database.Database; label: string }> {
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
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.defaultSafeIntegers(true);
    return { db, label: requested };
  } catch (error) {
    throw new ConnectorError('invalid_payload', `${requested} cannot be opened: ${errorMessage(error)}`);
  }
}

function classify(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const message = errorMessage(error);
  if (/no such table/i.test(message)) return new ConnectorError('not_found', message);
  if (/readonly|read-only/i.test(message))
    return new ConnectorError('invalid_config', `Only read-only queries are allowed: ${message}`);
  if (/syntax error|no such column/i.test(message))
    return new ConnectorError('invalid_config', `The query is invalid: ${message}`);
  if (/file is not a database|malformed/i.test(message))
    return new ConnectorError('invalid_payload', message);
  return new ConnectorError('driver_error', message);
}

function listTables(db: Database.Database): BrowseItem[] {
  const tables = db
    .prepare<[], { name: string; type: string }>(
      "select name, type from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%' order by name",
    )
    .all();
  return tables.map((table) => ({
    name: table.name,
    kind: table.type,
    columns: db
      .prepare<[], { name: string; type: string }>(
        `select name, type from pragma_table_info(${`'${table.name.replace(/'/g, "''")}'`})`,
      )
      .all()
      .map((c) => ({ name: c.name, type: c.type || 'ANY' })),
  }));
}

export const sqliteDriver: ConnectorDriver<SqliteConfig> = {
  async test(config, ctx) {
    const { db, label } = await openDatabase(config, ctx);
    try {
      const tables = listTables(db);
      return {
        message: `Opened ${label} read-only: ${tables.length} table(s) and view(s).`,
        details: { tables: tables.length },
      };
    } catch (error) {
      throw classify(error);
    } finally {
      db.close();
    }
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const { db, label } = await openDatabase(config, ctx);
    try {
      const items = listTables(db);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s) in ${label}.`,
        discovery: { path: label },
      };
    } catch (error) {
      throw classify(error);
    } finally {
      db.close();
    }
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const { db } = await openDatabase(config, ctx);
      try {
        let sql: string;
        if (selection.query !== undefined && selection.query.trim() !== '')
          sql = selection.query.trim().replace(/;\s*$/, '');
        else if (selection.table) sql = `select * from ${quoteIdent(selection.table, 'ansi')}`;
        else
          throw new ConnectorError(
            'invalid_config',
            'A table or a read-only query is required to read rows.',
          );
        const statement = db.prepare(sql);
        if (!statement.reader || !statement.readonly) {
          throw new ConnectorError('invalid_config', 'Only one read-only SELECT statement is allowed.');
        }
        let batch: Record<string, unknown>[] = [];
        for (const row of statement.iterate() as IterableIterator<Record<string, unknown>>) {
          batch.push(sqlRecord(row));
          if (batch.length >= ctx.batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      } catch (error) {
        throw classify(error);
      } finally {
        db.close();
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
