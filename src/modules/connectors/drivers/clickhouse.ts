import type { ClickHouseClient } from '@clickhouse/client';
import { ClickhouseConfig } from '../connector-config';
import {
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { GuardedAgents, guardedAgents } from '../guarded-http-agent';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { quoteIdent, tablesFromColumns } from './sql-common';
import { CLICKHOUSE_READ_SETTINGS, CLICKHOUSE_TYPED_FORMAT, ClickhouseTypedRows } from './clickhouse-cells';
import { defineConnector } from '../connector-descriptor';
import { parseUrl } from '../connector-config';
import {
  compact,
  ConfigBoolean,
  ConfigPort,
  ConfigString,
  ConnectorConfig,
  FieldCheck,
} from '../config-fields';

const REQUEST_TIMEOUT_MS = 60_000;
const loadClickhouse = loadOnFirstUse(() => import('@clickhouse/client'));
const AUTH_CODES = new Set(['516', '192', '193', '194', '195', '497']);
const NOT_FOUND_CODES = new Set(['81', '60', '47']);
const INVALID_CODES = new Set(['62', '164', '46', '43', '53']);

export function classifyClickhouseError(
  error: unknown,
  label: string,
  agents?: GuardedAgents,
): ConnectorError {
  const network = classifyNetworkError(agents?.refusal ?? error, label);
  if (network) return network;
  const code = (error as { code?: unknown }).code;
  const message = errorMessage(error).split('\n')[0];
  if (typeof code === 'string' && AUTH_CODES.has(code))
    return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  if (typeof code === 'string' && NOT_FOUND_CODES.has(code))
    return new ConnectorError('not_found', `Not found: ${message}`);
  if (typeof code === 'string' && INVALID_CODES.has(code))
    return new ConnectorError('invalid_config', `The query is invalid or not read-only: ${message}`);
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

function hostPort(config: ClickhouseConfig): string {
  const host = config.host ?? 'localhost';
  return `${host.includes(':') ? `[${host}]` : host}:${config.port ?? 8123}`;
}

function endpoint(config: ClickhouseConfig): {
  url: string;
  user: string;
  password: string;
  database: string;
} {
  let user = config.user;
  let password = config.password ?? '';
  let database = config.database;
  if (config.connection_string) {
    const dsn = new URL(config.connection_string);
    if (dsn.username) user = decodeURIComponent(dsn.username);
    if (dsn.password) password = decodeURIComponent(dsn.password);
    const path = dsn.pathname.replace(/^\//, '');
    if (path) database = decodeURIComponent(path);
  }
  return {
    url: `${config.secure ? 'https' : 'http'}://${hostPort(config)}`,
    user,
    password,
    database,
  };
}

async function open(
  config: ClickhouseConfig,
  ctx: DriverContext,
): Promise<{ client: ClickHouseClient; agents: GuardedAgents; label: string }> {
  const target = endpoint(config);
  const { createClient, ClickHouseLogLevel } = await loadClickhouse();
  const agents = guardedAgents(ctx.egress, { purpose: 'connector', orgId: ctx.orgId });
  const client = createClient({
    url: target.url,
    username: target.user,
    password: target.password,
    database: target.database,
    request_timeout: REQUEST_TIMEOUT_MS,
    http_agent: config.secure ? agents.https : agents.http,
    set_basic_auth_header: true,
    application: 'decision-service',
    // Failures reach the caller as classified errors; the client's own console lines would bypass the JSON log.
    log: { level: ClickHouseLogLevel.OFF },
  });
  return { client, agents, label: hostPort(config) };
}

async function withClient<T>(
  config: ClickhouseConfig,
  ctx: DriverContext,
  work: (client: ClickHouseClient, label: string) => Promise<T>,
): Promise<T> {
  const { client, agents, label } = await open(config, ctx);
  try {
    return await work(client, label);
  } catch (error) {
    throw classifyClickhouseError(error, label, agents);
  } finally {
    await client.close();
  }
}

async function rowsOf<T>(client: ClickHouseClient, query: string, readonly = false): Promise<T[]> {
  const result = await client.query({
    query,
    format: 'JSONEachRow',
    ...(readonly ? { clickhouse_settings: { readonly: '2' } } : {}),
  });
  return result.json<T>();
}

export const clickhouseDriver: ConnectorDriver<ClickhouseConfig> = {
  async test(config, ctx) {
    return withClient(config, ctx, async (client, label) => {
      const [row] = await rowsOf<{ version?: unknown; db?: unknown }>(
        client,
        'SELECT version() AS version, currentDatabase() AS db',
      );
      // Any HTTP server may answer 200; only ClickHouse answers this query with its version and database.
      if (typeof row?.version !== 'string' || !/^\d+\.\d+/.test(row.version) || typeof row.db !== 'string') {
        throw new ConnectorError(
          'remote_error',
          `${label} did not answer as a ClickHouse server (no version in its answer to SELECT version()).`,
        );
      }
      return {
        message: `Connected to ClickHouse ${row?.version ?? ''} at ${label}, database ${row?.db ?? config.database}.`,
        details: { server_version: row?.version, database: row?.db },
      };
    });
  },

  async browse(config, ctx): Promise<BrowseResult> {
    return withClient(config, ctx, async (client) => {
      const rows = await rowsOf<Parameters<typeof tablesFromColumns>[0][number]>(
        client,
        `SELECT c.database AS table_schema, c.table AS table_name, t.engine AS table_type, c.name AS column_name, c.type AS data_type
         FROM system.columns c JOIN system.tables t ON t.database = c.database AND t.name = c.table
         WHERE c.database = currentDatabase() ORDER BY c.table, c.position`,
      );
      const items = tablesFromColumns(rows);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s) in ${config.database}.`,
        discovery: { database: config.database },
      };
    });
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const query =
        selection.query !== undefined && selection.query.trim() !== ''
          ? selection.query.trim().replace(/;\s*$/, '')
          : selection.table
            ? `SELECT * FROM ${quoteIdent(selection.table, 'mysql')}`
            : undefined;
      if (!query)
        throw new ConnectorError('invalid_config', 'A table or a read-only query is required to read rows.');
      const { client, agents, label } = await open(config, ctx);
      try {
        const result = await client.query({
          query,
          format: CLICKHOUSE_TYPED_FORMAT,
          clickhouse_settings: CLICKHOUSE_READ_SETTINGS,
        });
        const typed = new ClickhouseTypedRows();
        let batch: Record<string, unknown>[] = [];
        for await (const chunk of result.stream<unknown[]>()) {
          for (const row of chunk) {
            const record = typed.read(row.json());
            if (record === undefined) continue;
            batch.push(record);
            if (batch.length >= ctx.batchSize) {
              yield batch;
              batch = [];
            }
          }
        }
        if (batch.length > 0) yield batch;
      } catch (error) {
        throw classifyClickhouseError(error, label, agents);
      } finally {
        await client.close();
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function endpointOf(config: ClickhouseConnectorConfig): URL | undefined {
  const endpoint = text(config.connection_string) || text(config.url);
  return endpoint ? parseUrl(endpoint) : undefined;
}

function hostOf(config: ClickhouseConnectorConfig): string | undefined {
  const parsed = endpointOf(config);
  let host = text(config.host);
  if (parsed && (!text(config.connection_string) || !host)) host = parsed.hostname || host;
  // URL.hostname keeps an IPv6 literal's brackets; the host is stored bare, however it was given.
  return host?.replace(/^\[(.*)\]$/, '$1');
}

const endpointUrl =
  (field: 'connection_string' | 'url'): FieldCheck<ClickhouseConnectorConfig> =>
  (value, config) => {
    if (!value) return undefined;
    if (field === 'url' && text(config.connection_string)) return undefined;
    return parseUrl(value as string) ? undefined : 'must be a URL such as https://host:8443';
  };

export class ClickhouseConnectorConfig extends ConnectorConfig<ClickhouseConfig> {
  @ConfigString<ClickhouseConnectorConfig>({
    checks: [endpointUrl('connection_string')],
    description: 'clickhouse(s):// or http(s):// DSN; gives host, port and secure.',
  })
  connection_string?: string;

  @ConfigString<ClickhouseConnectorConfig>({
    checks: [endpointUrl('url')],
    description: 'http(s)://host:port; gives host, port and secure.',
  })
  url?: string;

  @ConfigString<ClickhouseConnectorConfig>({
    checks: [(_host, config) => (hostOf(config) ? undefined : 'is required (or connection_string or url)')],
  })
  host?: string;

  @ConfigPort({ description: 'Default: from the URL, else 8443 when secure, else 8123.' })
  port?: number;

  @ConfigString({ default: 'default' })
  database?: string;

  @ConfigString({ aliases: ['username'], default: 'default' })
  user?: string;

  @ConfigString({ secret: true })
  password?: string;

  @ConfigBoolean({ description: 'HTTPS; default: from the URL, else false.' })
  secure?: boolean;

  toConfig(): ClickhouseConfig {
    const parsed = endpointOf(this);
    const secure =
      this.secure ??
      (parsed !== undefined &&
        (['https:', 'clickhouses:'].includes(parsed.protocol) ||
          parsed.searchParams.get('secure') === 'true'));
    let port = this.port;
    if (parsed?.port && (!this.connection_string || port === undefined)) port = Number(parsed.port);
    return compact<ClickhouseConfig>({
      host: hostOf(this),
      port: port ?? (secure ? 8443 : 8123),
      database: this.database ?? 'default',
      user: this.user ?? 'default',
      password: this.password,
      secure,
      connection_string: this.connection_string,
      url: this.url,
    });
  }
}

export const clickhouseConnector = defineConnector({
  name: 'clickhouse',
  family: 'sql',
  config: ClickhouseConnectorConfig,
  destinationFields: ['host', 'port', 'secure', 'url', 'connection_string'],
  driver: clickhouseDriver,
});
