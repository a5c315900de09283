import type { Connection } from 'snowflake-sdk';
import { SnowflakeConfig } from '../connector-config';
import {
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { GuardedProxy, startGuardedProxy } from '../guarded-proxy';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { assertReadOnlyQuery, selectionSql, tablesFromColumns } from './sql-common';
import { SnowflakeColumn, snowflakeRecord } from './snowflake-cells';
import { defineConnector } from '../connector-descriptor';
import { httpUrl } from '../connector-config';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';

const TIMEOUT_MS = 60_000;
type SnowflakeSdk = typeof import('snowflake-sdk');

/**
 * On load the SDK probes cloud metadata endpoints with its own sockets, outside the egress guard: its switch must be
 * set before the module is evaluated. Also process-wide: no OCSP traffic, console logging or environment proxy.
 */
const loadSdk = loadOnFirstUse(async () => {
  // eslint-disable-next-line no-restricted-properties
  process.env.SNOWFLAKE_DISABLE_PLATFORM_DETECTION = 'true';
  const loaded = ((await import('snowflake-sdk')) as { default: SnowflakeSdk }).default;
  loaded.configure({
    logLevel: 'OFF',
    disableOCSPChecks: true,
    additionalLogToConsole: false,
    useEnvProxy: false,
  });
  return loaded;
});

interface Resolved {
  readonly account: string;
  readonly user: string;
  readonly password: string;
  readonly warehouse?: string;
  readonly database?: string;
  readonly schema?: string;
  readonly role?: string;
}

/** `snowflake://user:password@account/database/schema?warehouse=W&role=R`; discrete fields fill what it lacks. */
export function snowflakeSettings(config: SnowflakeConfig): Resolved {
  if (!config.connection_string) {
    return {
      account: config.account ?? '',
      user: config.user ?? '',
      password: config.password ?? '',
      ...config,
    };
  }
  let url: URL;
  try {
    url = new URL(config.connection_string);
  } catch {
    throw new ConnectorError(
      'invalid_config',
      'connection_string must look like snowflake://user:password@account/database/schema.',
    );
  }
  const [database, schema] = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  return {
    account: url.hostname || (config.account ?? ''),
    user: decodeURIComponent(url.username) || (config.user ?? ''),
    password: decodeURIComponent(url.password) || (config.password ?? ''),
    database: database ?? config.database,
    schema: schema ?? config.schema,
    warehouse: url.searchParams.get('warehouse') ?? config.warehouse,
    role: url.searchParams.get('role') ?? config.role,
  };
}

export function classifySnowflakeError(error: unknown, label: string, proxy?: GuardedProxy): ConnectorError {
  const network = classifyNetworkError(proxy?.refusal ?? error, label);
  if (network) return network;
  const rawCode = (error as { code?: unknown }).code;
  const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : '';
  const message = errorMessage(error);
  if (
    ['390100', '390144', '390318', '390422', '394300'].includes(code) ||
    /incorrect username or password/i.test(message)
  ) {
    return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  }
  if (['390201', '002003', '002043'].includes(code) || /does not exist/i.test(message))
    return new ConnectorError('not_found', `Not found: ${message}`);
  if (code === '401001' || code === '401002')
    return new ConnectorError('unreachable', `${label} is unreachable: ${message}`);
  if (code === '001003' || code === '002002')
    return new ConnectorError('invalid_config', `The query is invalid: ${message}`);
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

async function open(
  config: SnowflakeConfig,
  ctx: DriverContext,
): Promise<{ connection: Connection; proxy: GuardedProxy; label: string }> {
  const snowflake = await loadSdk();
  const settings = snowflakeSettings(config);
  const accessUrl = config.access_url ?? `https://${settings.account}.snowflakecomputing.com`;
  const label = new URL(accessUrl).host;
  const proxy = await startGuardedProxy(ctx.egress, { purpose: 'connector', orgId: ctx.orgId });
  const connection = snowflake.createConnection({
    account: settings.account,
    username: settings.user,
    password: settings.password,
    warehouse: settings.warehouse,
    database: settings.database,
    schema: settings.schema,
    role: settings.role,
    accessUrl,
    proxyHost: proxy.host,
    proxyPort: proxy.port,
    // With a colon: the SDK hands it to http.Agent as `protocol`, which Node 24 honours ('http' fails every request).
    proxyProtocol: 'http:',
    timeout: TIMEOUT_MS,
    sfRetryMaxLoginRetries: 1,
    application: 'decision-service',
    clientSessionKeepAlive: false,
  });
  try {
    await new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await proxy.close();
    throw classifySnowflakeError(error, label, proxy);
  }
  return { connection, proxy, label };
}

function execute(connection: Connection, sqlText: string): Promise<Record<string, unknown>[]> {
  return executeWithColumns(connection, sqlText).then(({ rows }) => rows);
}

function executeWithColumns(
  connection: Connection,
  sqlText: string,
): Promise<{ rows: Record<string, unknown>[]; columns: ReadonlyMap<string, SnowflakeColumn> }> {
  return new Promise((resolve, reject) =>
    connection.execute({
      sqlText,
      complete: (error, statement, rows) => {
        if (error) return reject(error);
        const columns = new Map((statement.getColumns() ?? []).map((c) => [c.getName(), c] as const));
        resolve({ rows: (rows ?? []) as Record<string, unknown>[], columns });
      },
    }),
  );
}

async function withConnection<T>(
  config: SnowflakeConfig,
  ctx: DriverContext,
  work: (c: Connection, label: string) => Promise<T>,
): Promise<T> {
  const { connection, proxy, label } = await open(config, ctx);
  try {
    return await work(connection, label);
  } catch (error) {
    throw classifySnowflakeError(error, label, proxy);
  } finally {
    await new Promise<void>((resolve) => connection.destroy(() => resolve()));
    await proxy.close();
  }
}

export const snowflakeDriver: ConnectorDriver<SnowflakeConfig> = {
  async test(config, ctx) {
    return withConnection(config, ctx, async (connection, label) => {
      const [row] = await execute(
        connection,
        'SELECT CURRENT_VERSION() AS VERSION, CURRENT_DATABASE() AS DB, CURRENT_WAREHOUSE() AS WH',
      );
      return {
        message: `Connected to Snowflake ${typeof row?.VERSION === 'string' ? row.VERSION : ''} at ${label}.`,
        details: { server_version: row?.VERSION, database: row?.DB, warehouse: row?.WH },
      };
    });
  },

  async browse(config, ctx): Promise<BrowseResult> {
    return withConnection(config, ctx, async (connection) => {
      const rows = await execute(
        connection,
        `SELECT c.TABLE_SCHEMA AS "table_schema", c.TABLE_NAME AS "table_name", t.TABLE_TYPE AS "table_type", c.COLUMN_NAME AS "column_name", c.DATA_TYPE AS "data_type"
         FROM INFORMATION_SCHEMA.COLUMNS c JOIN INFORMATION_SCHEMA.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
         WHERE c.TABLE_SCHEMA <> 'INFORMATION_SCHEMA' ORDER BY 1, 2, c.ORDINAL_POSITION`,
      );
      const items = tablesFromColumns(rows as unknown as Parameters<typeof tablesFromColumns>[0]);
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
      const query = selectionSql(selection, 'ansi');
      if (selection.query) assertReadOnlyQuery(query);
      const { connection, proxy, label } = await open(config, ctx);
      try {
        const { rows: records, columns } = await executeWithColumns(connection, query);
        for (let i = 0; i < records.length; i += ctx.batchSize)
          yield records.slice(i, i + ctx.batchSize).map((row) => snowflakeRecord(row, columns));
      } catch (error) {
        throw classifySnowflakeError(error, label, proxy);
      } finally {
        await new Promise<void>((resolve) => connection.destroy(() => resolve()));
        await proxy.close();
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

const withoutDsn = (config: SnowflakeConnectorConfig): boolean =>
  !(typeof config.connection_string === 'string' && config.connection_string !== '');

export class SnowflakeConnectorConfig extends ConnectorConfig<SnowflakeConfig> {
  @ConfigString({
    description: 'snowflake://user:password@account/database/schema?warehouse=...; wins when set.',
  })
  connection_string?: string;

  @ConfigString({ required: withoutDsn, description: 'Required without a DSN.' })
  account?: string;

  @ConfigString({ aliases: ['username'], required: withoutDsn, description: 'Required without a DSN.' })
  user?: string;

  @ConfigString({ secret: true, required: withoutDsn, description: 'Required without a DSN.' })
  password?: string;

  @ConfigString()
  warehouse?: string;

  @ConfigString()
  database?: string;

  @ConfigString()
  schema?: string;

  @ConfigString()
  role?: string;

  @ConfigString({
    checks: [httpUrl],
    description: 'A private-link or test endpoint instead of https://<account>.snowflakecomputing.com.',
  })
  access_url?: string;

  toConfig(): SnowflakeConfig {
    return storedFields(this);
  }
}

export const snowflakeConnector = defineConnector({
  name: 'snowflake',
  family: 'sql',
  config: SnowflakeConnectorConfig,
  destinationFields: ['account', 'access_url', 'connection_string'],
  driver: snowflakeDriver,
});
