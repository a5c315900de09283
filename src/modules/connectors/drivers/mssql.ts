import { isIP } from 'node:net';
import type { config as MssqlOptions, ConnectionPool } from 'mssql';
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
  assertReadOnlyQuery,
  CONNECT_TIMEOUT_MS,
  selectionSql,
  sqlEndpoint,
  tablesFromColumns,
} from './sql-common';
import { MssqlColumns, mssqlRecord } from './mssql-cells';
import { defineConnector } from '../connector-descriptor';
import { SqlServerFields, unlessDsn } from '../connector-config';
import { ConfigBoolean, ConfigPort } from '../config-fields';

const REQUEST_TIMEOUT_MS = 120_000;
const loadMssql = loadOnFirstUse(async () => (await import('mssql')).default);

export function classifyMssqlError(error: unknown, label: string): ConnectorError {
  const code = (error as { code?: unknown }).code;
  if (code === 'ELOGIN') {
    const message = errorMessage(error);
    if (/Cannot open database/i.test(message))
      return new ConnectorError('not_found', `Database not found: ${message}`);
    return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  }
  if (code === 'ETIMEOUT') return new ConnectorError('timeout', `${label} did not answer in time.`);
  const network = classifyNetworkError(error, label);
  if (network) return network;
  const number = (error as { number?: unknown; originalError?: { info?: { number?: unknown } } }).number;
  const message = errorMessage(error);
  if (number === 18456) return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  if (number === 4060) return new ConnectorError('not_found', `Database not found: ${message}`);
  if (number === 208) return new ConnectorError('not_found', `Not found: ${message}`);
  if (number === 3906 || number === 102 || number === 156)
    return new ConnectorError('invalid_config', `The query is invalid or not read-only: ${message}`);
  if (code === 'ESOCKET' || code === 'ECONNCLOSED')
    return new ConnectorError('unreachable', `${label} is unreachable: ${message}`);
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

/** The tedious config: connect to the checked address, keep the host name for the TLS certificate check. */
export async function mssqlConfig(
  config: SqlServerConfig,
  ctx: DriverContext,
): Promise<{ options: MssqlOptions; label: string }> {
  const endpoint = sqlEndpoint(config, 1433, ['mssql', 'sqlserver']);
  const label = `${endpoint.host}:${endpoint.port}`;
  const destination = await ctx.egress
    .connect(endpoint.host, endpoint.port, { purpose: 'connector', orgId: ctx.orgId })
    .catch((error: unknown) => {
      throw classifyMssqlError(error, label);
    });
  const encrypt = endpoint.params.get('encrypt')
    ? endpoint.params.get('encrypt') === 'true'
    : (config.encrypt ?? true);
  return {
    label,
    options: {
      server: destination.address,
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password,
      database: endpoint.database,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      pool: { min: 0, max: 1 },
      options: {
        encrypt,
        trustServerCertificate: config.trust_server_certificate ?? false,
        ...(isIP(endpoint.host) ? {} : { serverName: endpoint.host }),
        appName: 'decision-service',
      },
    },
  };
}

async function withPool<T>(
  config: SqlServerConfig,
  ctx: DriverContext,
  work: (pool: ConnectionPool, label: string) => Promise<T>,
): Promise<T> {
  const { options, label } = await mssqlConfig(config, ctx);
  const sql = await loadMssql();
  const pool = new sql.ConnectionPool(options);
  pool.on('error', () => undefined);
  try {
    await pool.connect();
    return await work(pool, label);
  } catch (error) {
    throw classifyMssqlError(error, label);
  } finally {
    await pool.close().catch(() => undefined);
  }
}

export const mssqlDriver: ConnectorDriver<SqlServerConfig> = {
  async test(config, ctx) {
    return withPool(config, ctx, async (pool, label) => {
      const result = await pool
        .request()
        .query<{ version: string; db: string }>('SELECT @@VERSION AS version, DB_NAME() AS db');
      const row = result.recordset[0];
      return {
        message: `Connected to ${row?.version.split('\n')[0] ?? 'SQL Server'} at ${label}, database ${row?.db ?? '?'}.`,
        details: { server_version: row?.version.split('\n')[0], database: row?.db },
      };
    });
  },

  async browse(config, ctx): Promise<BrowseResult> {
    return withPool(config, ctx, async (pool) => {
      const result = await pool.request().query(
        `SELECT c.TABLE_SCHEMA AS table_schema, c.TABLE_NAME AS table_name, t.TABLE_TYPE AS table_type, c.COLUMN_NAME AS column_name, c.DATA_TYPE AS data_type
         FROM INFORMATION_SCHEMA.COLUMNS c JOIN INFORMATION_SCHEMA.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
         ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
      );
      const items = tablesFromColumns(result.recordset as Parameters<typeof tablesFromColumns>[0]);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s).`,
        discovery: { database: config.database },
      };
    });
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const query = selectionSql(selection, 'tsql');
      if (selection.query) assertReadOnlyQuery(query);
      const { options, label } = await mssqlConfig(config, ctx);
      const sql = await loadMssql();
      const pool = new sql.ConnectionPool(options);
      pool.on('error', () => undefined);
      try {
        await pool.connect();
        const transaction = new sql.Transaction(pool);
        await transaction.begin();
        try {
          // Snapshot-free read: the statement runs inside a transaction that is always rolled back.
          const result = await new sql.Request(transaction).query<Record<string, unknown>>(query);
          const records = result.recordset ?? [];
          const columns = result.recordset?.columns as MssqlColumns | undefined;
          for (let i = 0; i < records.length; i += ctx.batchSize)
            yield records.slice(i, i + ctx.batchSize).map((row) => mssqlRecord(row, columns, sql));
        } finally {
          await transaction.rollback().catch(() => undefined);
        }
      } catch (error) {
        throw classifyMssqlError(error, label);
      } finally {
        await pool.close().catch(() => undefined);
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

export class MssqlConnectorConfig extends SqlServerFields {
  @ConfigPort<SqlServerFields>({ default: unlessDsn(1433) })
  override port?: number = undefined;

  @ConfigBoolean({ default: true, description: 'TLS on the TDS connection.' })
  encrypt?: boolean;

  @ConfigBoolean({ default: false, description: 'Accept a self-signed server certificate.' })
  trust_server_certificate?: boolean;
}

export const mssqlConnector = defineConnector({
  name: 'mssql',
  family: 'sql',
  config: MssqlConnectorConfig,
  destinationFields: ['host', 'port', 'connection_string', 'encrypt', 'trust_server_certificate'],
  driver: mssqlDriver,
});
