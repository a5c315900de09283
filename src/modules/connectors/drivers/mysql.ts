import { connect as netConnect } from 'node:net';
import type { Connection, ConnectionOptions, FieldPacket } from 'mysql2';
import { SqlServerConfig } from '../connector-config';
import {
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import {
  CONNECT_TIMEOUT_MS,
  Endpoint,
  MAX_BROWSE_TABLES,
  selectionSql,
  sqlEndpoint,
  sqlRecord,
  tablesFromColumns,
} from './sql-common';
import { refuseSideEffects } from './sql-side-effects';
import { defineConnector } from '../connector-descriptor';
import { SqlServerFields, unlessDsn } from '../connector-config';
import { ConfigPort } from '../config-fields';

const loadMysql = loadOnFirstUse(async () => (await import('mysql2')).default);

export function classifyMysqlError(error: unknown, endpoint: string): ConnectorError {
  const network = classifyNetworkError(error, endpoint);
  if (network) return network;
  const code = (error as { code?: unknown }).code;
  const message = errorMessage(error);
  switch (code) {
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
    case 'ER_TABLEACCESS_DENIED_ERROR':
    case 'ER_NOT_SUPPORTED_AUTH_MODE':
      return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
    case 'ER_BAD_DB_ERROR':
      return new ConnectorError('not_found', `Database not found: ${message}`);
    case 'ER_NO_SUCH_TABLE':
      return new ConnectorError('not_found', `Not found: ${message}`);
    case 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION':
      return new ConnectorError('invalid_config', `Only read-only queries are allowed: ${message}`);
    case 'ER_PARSE_ERROR':
    case 'ER_BAD_FIELD_ERROR':
      return new ConnectorError('invalid_config', `The query is invalid: ${message}`);
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return new ConnectorError('unreachable', `The server does not offer TLS: ${message}`);
    case 'PROTOCOL_CONNECTION_LOST':
      return new ConnectorError('unreachable', `${endpoint} closed the connection: ${message}`);
    default:
      return new ConnectorError('remote_error', `${endpoint} failed: ${message}`);
  }
}

async function connectOnce(options: ConnectionOptions): Promise<Connection> {
  const mysql = await loadMysql();
  return new Promise((resolve, reject) => {
    const connection = mysql.createConnection(options);
    connection.on('error', () => undefined);
    connection.connect((error) => (error ? reject(error) : resolve(connection)));
  });
}

function query<T>(connection: Connection, sql: string, values: unknown[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    connection.query(sql, values, (error, rows) => (error ? reject(error) : resolve(rows as T)));
  });
}

async function open(
  config: SqlServerConfig,
  ctx: DriverContext,
): Promise<{ connection: Connection; endpoint: Endpoint }> {
  const endpoint = sqlEndpoint(config, 3306, ['mysql', 'mariadb']);
  const label = `${endpoint.host}:${endpoint.port}`;
  try {
    const destination = await ctx.egress.connect(endpoint.host, endpoint.port, {
      purpose: 'connector',
      orgId: ctx.orgId,
    });
    // The socket goes to the checked address; `host` stays the name, which mysql2 uses as the TLS servername.
    const base: ConnectionOptions = {
      host: endpoint.host,
      stream: netConnect({ host: destination.address, port: endpoint.port }),
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password ?? '',
      database: endpoint.database,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Values as the server writes them: exact digits, dates as text, JSON as its text (parsing rounds).
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      jsonStrings: true,
      multipleStatements: false,
      charset: 'utf8mb4',
    };
    const sslMode =
      endpoint.params.get('ssl-mode')?.toLowerCase() ?? endpoint.params.get('ssl_mode')?.toLowerCase();
    const wantsTls = sslMode === 'required' || sslMode === 'verify_identity' || sslMode === 'verify_ca';
    const connection = await connectOnce(
      wantsTls ? { ...base, ssl: { rejectUnauthorized: sslMode !== 'required' } } : base,
    );
    // TIMESTAMP columns are shown in the session's zone (the server's by default): read them in UTC.
    await query(connection, "SET time_zone = '+00:00'");
    return { connection, endpoint };
  } catch (error) {
    throw classifyMysqlError(error, label);
  }
}

async function withConnection<T>(
  config: SqlServerConfig,
  ctx: DriverContext,
  work: (c: Connection, e: Endpoint) => Promise<T>,
): Promise<T> {
  const { connection, endpoint } = await open(config, ctx);
  try {
    return await work(connection, endpoint);
  } catch (error) {
    throw classifyMysqlError(error, `${endpoint.host}:${endpoint.port}`);
  } finally {
    connection.destroy();
  }
}

const BROWSE_SQL = `select c.table_schema as table_schema, c.table_name as table_name, t.table_type as table_type,
    c.column_name as column_name, c.column_type as data_type
  from information_schema.columns c
  join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
  where c.table_schema = database()
  order by c.table_name, c.ordinal_position`;

/** DECIMAL, TIMESTAMP, BIGINT, DATE, DATETIME, NEWDATE, NEWDECIMAL: typed values mysql2 gives as text. */
const READ_BY_SHAPE = [0, 7, 8, 10, 12, 14, 246];

function shapedColumns(fields: readonly FieldPacket[]): ReadonlySet<string> {
  return new Set(
    fields.filter((field) => READ_BY_SHAPE.includes(field.columnType ?? field.type ?? -1)).map((f) => f.name),
  );
}

export const mysqlDriver: ConnectorDriver<SqlServerConfig> = {
  async test(config, ctx) {
    return withConnection(config, ctx, async (connection, endpoint) => {
      const [row] = await query<{ version: string; db: string | null }[]>(
        connection,
        'select version() as version, database() as db',
      );
      return {
        message: `Connected to MySQL/MariaDB ${row?.version ?? ''} at ${endpoint.host}:${endpoint.port}, database ${row?.db ?? '(none)'}.`,
        details: { server_version: row?.version, database: row?.db },
      };
    });
  },

  async browse(config, ctx): Promise<BrowseResult> {
    return withConnection(config, ctx, async (connection, endpoint) => {
      const rows = await query<Parameters<typeof tablesFromColumns>[0]>(connection, BROWSE_SQL);
      const items = tablesFromColumns(rows);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s) in database ${endpoint.database ?? '(default)'}${items.length >= MAX_BROWSE_TABLES ? ` (first ${MAX_BROWSE_TABLES})` : ''}.`,
        discovery: { database: endpoint.database, server: `${endpoint.host}:${endpoint.port}` },
      };
    });
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const sql = selectionSql(selection, 'mysql');
      if (selection.query?.trim()) refuseSideEffects(sql, 'mysql');
      const { connection, endpoint } = await open(config, ctx);
      try {
        await query(connection, 'START TRANSACTION READ ONLY');
        const running = connection.query(sql);
        let shaped: ReadonlySet<string> = new Set();
        running.on('fields', (fields: FieldPacket[]) => (shaped = shapedColumns(fields)));
        const stream = running.stream({ highWaterMark: ctx.batchSize }) as AsyncIterable<
          Record<string, unknown>
        >;
        let batch: Record<string, unknown>[] = [];
        for await (const row of stream) {
          batch.push(sqlRecord(row, shaped));
          if (batch.length >= ctx.batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
        await query(connection, 'ROLLBACK');
      } catch (error) {
        throw classifyMysqlError(error, `${endpoint.host}:${endpoint.port}`);
      } finally {
        connection.destroy();
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

export class MysqlConnectorConfig extends SqlServerFields {
  @ConfigPort<SqlServerFields>({ default: unlessDsn(3306) })
  override port?: number = undefined;
}

export const mysqlConnector = defineConnector({
  name: 'mysql',
  family: 'sql',
  config: MysqlConnectorConfig,
  destinationFields: ['host', 'port', 'connection_string'],
  driver: mysqlDriver,
});
