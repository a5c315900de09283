import { isIP } from 'node:net';
import type { Client, ClientConfig, QueryConfig } from 'pg';
import { SqlServerConfig, SslMode } from '../connector-config';
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
  FETCH_ROWS,
  MAX_BROWSE_TABLES,
  pullBatches,
  selectionSql,
  sqlEndpoint,
  tablesFromColumns,
} from './sql-common';
import { refuseSideEffects } from './sql-side-effects';
import { defineConnector } from '../connector-descriptor';
import { exactTypeParsers, shapedColumns } from './pg-type-parsers';
import { SSL_MODES, SqlServerFields, unlessDsn } from '../connector-config';
import { ConfigEnum, ConfigPort } from '../config-fields';

const loadPg = loadOnFirstUse(async () => (await import('pg')).default);

const SSL_MODE_PARAM = /^(disable|allow|prefer|require|verify-ca|verify-full)$/;

interface Flavor {
  readonly label: string;
  readonly defaultPort: number;
  readonly schemes: readonly string[];
}

const POSTGRES: Flavor = { label: 'PostgreSQL', defaultPort: 5432, schemes: ['postgres', 'postgresql'] };
const REDSHIFT: Flavor = {
  label: 'Redshift',
  defaultPort: 5432,
  schemes: ['redshift', 'postgres', 'postgresql'],
};

export function classifyPgError(error: unknown, endpoint: string): ConnectorError {
  const network = classifyNetworkError(error, endpoint);
  if (network) return network;
  const code = (error as { code?: unknown }).code;
  const message = errorMessage(error);
  switch (code) {
    case '28P01':
    case '28000':
      return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
    case '3D000':
      return new ConnectorError('not_found', `Database not found: ${message}`);
    case '42P01':
    case '3F000':
      return new ConnectorError('not_found', `Not found: ${message}`);
    case '42501':
      return new ConnectorError('auth_failed', `Permission denied: ${message}`);
    case '57014':
      return new ConnectorError('timeout', `The query was cancelled: ${message}`);
    case '25006':
      return new ConnectorError('invalid_config', `Only read-only queries are allowed: ${message}`);
    default:
      if (typeof code === 'string' && /^(42|22|0A|34)/.test(code)) {
        return new ConnectorError('invalid_config', `The query is invalid: ${message}`);
      }
      if (/does not support SSL|SSL/i.test(message))
        return new ConnectorError('unreachable', `TLS failed: ${message}`);
      return new ConnectorError('remote_error', `${endpoint} failed: ${message}`);
  }
}

function sslFor(mode: SslMode, servername: string | undefined): ClientConfig['ssl'] {
  switch (mode) {
    case 'disable':
    case 'allow':
      return false;
    case 'prefer':
    case 'require':
      return { rejectUnauthorized: false, servername };
    case 'verify-ca':
      return { rejectUnauthorized: true, servername, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, servername };
  }
}

async function open(
  flavor: Flavor,
  config: SqlServerConfig,
  ctx: DriverContext,
): Promise<{ client: Client; endpoint: Endpoint }> {
  const endpoint = sqlEndpoint(config, flavor.defaultPort, flavor.schemes);
  const label = `${endpoint.host}:${endpoint.port}`;
  const sslParam = endpoint.params.get('sslmode') ?? undefined;
  const mode = (
    sslParam && SSL_MODE_PARAM.test(sslParam) ? sslParam : (config.ssl_mode ?? 'prefer')
  ) as SslMode;
  let destination;
  try {
    destination = await ctx.egress.connect(endpoint.host, endpoint.port, {
      purpose: 'connector',
      orgId: ctx.orgId,
    });
  } catch (error) {
    throw classifyPgError(error, label);
  }
  const servername = isIP(endpoint.host) ? undefined : endpoint.host;
  const pg = await loadPg();
  const types = exactTypeParsers(pg.types);
  const attempt = async (ssl: ClientConfig['ssl']): Promise<Client> => {
    const client = new pg.Client({
      host: destination.address,
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password ?? '',
      database: endpoint.database,
      ssl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'decision-service',
      types,
    });
    client.on('error', () => undefined);
    await client.connect();
    // timestamptz text then carries +00: what is read does not depend on the server's or the host's zone.
    await client.query("SET TIME ZONE 'UTC'");
    return client;
  };
  try {
    try {
      return { client: await attempt(sslFor(mode, servername)), endpoint };
    } catch (error) {
      // prefer: TLS first, plain when the server has none; allow: plain first, TLS when the server demands it.
      if (mode === 'prefer' && /does not support SSL/i.test(errorMessage(error))) {
        return { client: await attempt(false), endpoint };
      }
      if (mode === 'allow' && /SSL|encryption/i.test(errorMessage(error))) {
        return { client: await attempt({ rejectUnauthorized: false, servername }), endpoint };
      }
      throw error;
    }
  } catch (error) {
    throw classifyPgError(error, label);
  }
}

async function withClient<T>(
  flavor: Flavor,
  config: SqlServerConfig,
  ctx: DriverContext,
  work: (client: Client, endpoint: Endpoint) => Promise<T>,
): Promise<T> {
  const { client, endpoint } = await open(flavor, config, ctx);
  try {
    return await work(client, endpoint);
  } catch (error) {
    throw classifyPgError(error, `${endpoint.host}:${endpoint.port}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const BROWSE_SQL = `select c.table_schema, c.table_name, t.table_type, c.column_name, c.data_type
  from information_schema.columns c
  join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
  where c.table_schema not in ('pg_catalog', 'information_schema') and c.table_schema not like 'pg_toast%'
  order by c.table_schema, c.table_name, c.ordinal_position`;

function pgDriver(flavor: Flavor): ConnectorDriver<SqlServerConfig> {
  return {
    async test(config, ctx) {
      return withClient(flavor, config, ctx, async (client, endpoint) => {
        const result = await client.query<{ version: string; db: string }>(
          'select version() as version, current_database() as db',
        );
        const version = result.rows[0]?.version.split(' on ')[0] ?? flavor.label;
        return {
          message: `Connected to ${version} at ${endpoint.host}:${endpoint.port}, database ${result.rows[0]?.db ?? '?'}.`,
          details: {
            server_version: version,
            database: result.rows[0]?.db,
            tls: client.ssl !== false && Boolean((client as unknown as { ssl?: unknown }).ssl),
          },
        };
      });
    },

    async browse(config, ctx): Promise<BrowseResult> {
      return withClient(flavor, config, ctx, async (client, endpoint) => {
        const result = await client.query(BROWSE_SQL);
        const items = tablesFromColumns(result.rows as Parameters<typeof tablesFromColumns>[0]);
        return {
          items,
          total: items.length,
          message: `${items.length} table(s) and view(s) in database ${endpoint.database ?? '(default)'}${items.length >= MAX_BROWSE_TABLES ? ' (first ' + MAX_BROWSE_TABLES + ')' : ''}.`,
          discovery: { database: endpoint.database, server: `${endpoint.host}:${endpoint.port}` },
        };
      });
    },

    readRows(config, selection: RowSelection, ctx) {
      async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
        const sql = selectionSql(selection, 'ansi');
        if (selection.query?.trim()) refuseSideEffects(sql, 'postgres');
        const { client, endpoint } = await open(flavor, config, ctx);
        const label = `${endpoint.host}:${endpoint.port}`;
        try {
          // A read-only transaction and a cursor: writes are refused by the server and rows arrive in batches;
          // rolled back at the end, so what a function did despite READ ONLY (a large object) does not stay.
          await client.query('BEGIN TRANSACTION READ ONLY');
          // The extended protocol refuses several statements in one string ("select 1; delete ...").
          const declare: QueryConfig & { queryMode: 'extended' } = {
            text: `DECLARE ds_read NO SCROLL CURSOR FOR ${sql}`,
            queryMode: 'extended',
          };
          await client.query(declare);
          yield* pullBatches(async () => {
            const result = await client.query(`FETCH FORWARD ${FETCH_ROWS} FROM ds_read`);
            return { rows: result.rows as Record<string, unknown>[], shaped: shapedColumns(result.fields) };
          }, FETCH_ROWS);
          await client.query('ROLLBACK');
        } catch (error) {
          throw classifyPgError(error, label);
        } finally {
          await client.end().catch(() => undefined);
        }
      }
      return limitBatches(rows(), selection.limit);
    },
  };
}

export const postgresDriver = pgDriver(POSTGRES);
export const redshiftDriver = pgDriver(REDSHIFT);

export class PostgresConnectorConfig extends SqlServerFields {
  @ConfigPort<SqlServerFields>({ default: unlessDsn(5432) })
  override port?: number = undefined;

  @ConfigEnum(SSL_MODES, { aliases: ['sslmode'], default: 'prefer' })
  ssl_mode?: SslMode;
}

export const postgresConnector = defineConnector({
  name: 'postgres',
  family: 'sql',
  aliases: [{ name: 'postgresql' }],
  config: PostgresConnectorConfig,
  destinationFields: ['host', 'port', 'connection_string', 'ssl_mode'],
  driver: postgresDriver,
});
