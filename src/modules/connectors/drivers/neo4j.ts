import type { Driver, Record as Neo4jRecord, Session } from 'neo4j-driver';
import { isIP } from 'node:net';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';
import { parseUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { CollisionLog, ParsedRecord } from '../formats';
import { flattenRecord, isPlainObject } from '../formats/records';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { cypherWriteReason } from './neo4j-cypher';

export interface Neo4jConfig {
  /** `bolt://host:port` or `neo4j://host:port` (port 7687 by default). */
  readonly url: string;
  readonly username: string;
  readonly password?: string;
  readonly database?: string;
}

const DEFAULT_PORT = 7687;
const CONNECT_TIMEOUT_MS = 10_000;
const FETCH_SIZE = 1000;
/** A label or a query yielding more rows than this is refused rather than truncated. */
const MAX_ROWS = 1_000_000;
const MAX_BROWSE_ITEMS = 1000;
const ID_COLUMN = '_id';

const loadNeo4j = loadOnFirstUse(async () => (await import('neo4j-driver')).default);

type Neo4jModule = Awaited<ReturnType<typeof loadNeo4j>>;

interface Connection {
  readonly neo4j: Neo4jModule;
  readonly driver: Driver;
  readonly label: string;
}

function endpoint(config: Neo4jConfig): { host: string; port: number; label: string } {
  const url = new URL(config.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  return { host, port, label: url.host.includes(':') ? url.host : `${url.host}:${port}` };
}

const SERVER_CODES: readonly [RegExp, (message: string, label: string) => ConnectorError][] = [
  [
    /^Neo\.ClientError\.Security\.(Unauthorized|AuthenticationRateLimit|CredentialsExpired|TokenExpired)$/,
    (message) => new ConnectorError('auth_failed', `Authentication failed: ${message}`),
  ],
  [
    /^Neo\.ClientError\.Security\.(Forbidden|AuthorizationExpired)$/,
    (message) => new ConnectorError('auth_failed', `Permission denied: ${message}`),
  ],
  [
    /^Neo\.ClientError\.Database\.DatabaseNotFound$/,
    (message) => new ConnectorError('not_found', `Database not found: ${message}`),
  ],
  [
    /^Neo\.ClientError\.Statement\.AccessMode$|^Neo\.ClientError\.Transaction\.ForbiddenDueToTransactionType$/,
    (message) => new ConnectorError('invalid_config', `Only read-only queries are allowed: ${message}`),
  ],
  [
    /^Neo\.ClientError\.(Statement\.(SyntaxError|SemanticError|ArgumentError|ParameterMissing|TypeError)|Procedure\.ProcedureNotFound)$/,
    (message) => new ConnectorError('invalid_config', `The query is invalid: ${message}`),
  ],
  [
    /^Neo\.(ClientError\.Transaction\.TransactionTimedOut|TransientError\.Transaction\.(Terminated|LockClientStopped))/,
    (message, label) => new ConnectorError('timeout', `${label} stopped the query: ${message}`),
  ],
];

function classifyNeo4jError(error: unknown, label: string): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const network = classifyNetworkError(error, label);
  if (network) return network;
  const raw = (error as { code?: unknown } | undefined)?.code;
  const code = typeof raw === 'string' ? raw : '';
  const message = errorMessage(error);
  for (const [pattern, make] of SERVER_CODES) if (pattern.test(code)) return make(message, label);
  if (code === 'ServiceUnavailable' || code === 'SessionExpired') {
    if (/Failed to establish connection in|didn't respond in/i.test(message)) {
      return new ConnectorError('timeout', `${label} did not answer in time: ${message}`);
    }
    if (/Server responded HTTP/i.test(message)) {
      return new ConnectorError(
        'remote_error',
        `${label} answers HTTP, not Bolt (the Bolt port is usually 7687).`,
      );
    }
    const cause = / Caused by: (.*)$/.exec(message)?.[1] ?? message;
    return new ConnectorError('unreachable', `${label} is unreachable: ${cause}`);
  }
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

/**
 * A direct (bolt://) driver bound to the IP the egress guard resolved: no DNS rebinding, and no routing-table
 * servers the guard never saw.
 */
async function connect(config: Neo4jConfig, ctx: DriverContext): Promise<Connection> {
  const { host, port, label } = endpoint(config);
  const destination = await ctx.egress.connect(host, port, { purpose: 'connector', orgId: ctx.orgId });
  const neo4j = await loadNeo4j();
  const address = isIP(destination.address) === 6 ? `[${destination.address}]` : destination.address;
  const driver = neo4j.driver(
    `bolt://${address}:${port}`,
    neo4j.auth.basic(config.username, config.password ?? ''),
    {
      encrypted: false,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      connectionAcquisitionTimeout: CONNECT_TIMEOUT_MS,
      maxConnectionPoolSize: 1,
      maxTransactionRetryTime: 0,
      useBigInt: true,
      userAgent: 'decision-service',
    },
  );
  return { neo4j, driver, label };
}

function readSession(connection: Connection, config: Neo4jConfig): Session {
  return connection.driver.session({
    defaultAccessMode: connection.neo4j.session.READ,
    fetchSize: FETCH_SIZE,
    ...(config.database ? { database: config.database } : {}),
  });
}

async function withSession<T>(
  config: Neo4jConfig,
  ctx: DriverContext,
  work: (session: Session, connection: Connection) => Promise<T>,
): Promise<T> {
  let connection: Connection | undefined;
  let session: Session | undefined;
  try {
    connection = await connect(config, ctx);
    session = readSession(connection, config);
    return await work(session, connection);
  } catch (error) {
    throw classifyNeo4jError(error, endpoint(config).label);
  } finally {
    await session?.close().catch(() => undefined);
    await connection?.driver.close().catch(() => undefined);
  }
}

function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** Driver values as plain JSON-able values: integers as numbers (as text past 2^53), nodes by their properties. */
function plainValue(neo4j: Neo4jModule, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (Array.isArray(value)) return value.map((item) => plainValue(neo4j, item));
  if (neo4j.isNode(value) || neo4j.isRelationship(value)) {
    return plainValue(neo4j, value.properties);
  }
  if (neo4j.isPath(value)) return value.segments.length;
  if (neo4j.isInt(value)) return plainValue(neo4j, BigInt(value.toString()));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainValue(neo4j, item)]));
  }
  if (typeof value === 'object') return (value as { toString(): string }).toString();
  return value;
}

async function count(session: Session, query: string): Promise<number> {
  const result = await session.run(query);
  return Number(result.records[0]?.get('count') ?? 0);
}

async function names(session: Session, query: string, field: string): Promise<string[]> {
  const result = await session.run(query);
  return result.records.map((record) => String(record.get(field))).sort((a, b) => a.localeCompare(b));
}

async function browse(config: Neo4jConfig, ctx: DriverContext): Promise<BrowseResult> {
  return withSession(config, ctx, async (session) => {
    const labels = await names(session, 'CALL db.labels() YIELD label RETURN label', 'label');
    const types = await names(
      session,
      'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType',
      'relationshipType',
    );
    const items: BrowseItem[] = [];
    // One count per label and type: Neo4j answers these from its count store, without scanning.
    for (const label of labels.slice(0, MAX_BROWSE_ITEMS)) {
      ctx.signal?.throwIfAborted();
      const rows = await count(session, `MATCH (n:${quoteName(label)}) RETURN count(n) AS count`);
      items.push({ name: label, kind: 'label', rows });
    }
    for (const type of types.slice(0, MAX_BROWSE_ITEMS)) {
      ctx.signal?.throwIfAborted();
      const rows = await count(session, `MATCH ()-[r:${quoteName(type)}]->() RETURN count(r) AS count`);
      items.push({ name: type, kind: 'relationship_type', rows });
    }
    const more =
      labels.length + types.length > items.length ? ` (the first ${MAX_BROWSE_ITEMS} of each shown)` : '';
    return {
      items,
      total: labels.length + types.length,
      message: `Found ${labels.length} label(s) and ${types.length} relationship type(s)${more}.`,
      discovery: {
        labels: labels.length,
        relationship_types: types.length,
        ...(config.database ? { database: config.database } : {}),
      },
    };
  });
}

type Query = { readonly text: string; readonly row: (record: Neo4jRecord) => Record<string, unknown> };

function selectedQuery(selection: RowSelection, neo4j: Neo4jModule): Query {
  const label = selection.label?.trim();
  const cypher = selection.cypher?.trim();
  if ((label ? 1 : 0) + (cypher ? 1 : 0) !== 1) {
    throw new ConnectorError(
      'invalid_config',
      'A Neo4j read needs either a label or a read-only cypher query.',
    );
  }
  if (label) {
    return {
      text: `MATCH (n:${quoteName(label)}) RETURN n`,
      row: (record) => {
        const node = record.get('n') as { elementId: string; properties: Record<string, unknown> };
        return { [ID_COLUMN]: node.elementId, ...(plainValue(neo4j, node.properties) as object) };
      },
    };
  }
  return {
    text: cypher as string,
    row: (record) =>
      Object.fromEntries(record.keys.map((key) => [String(key), plainValue(neo4j, record.get(key))])),
  };
}

function refuseWrites(selection: RowSelection): void {
  const cypher = selection.cypher?.trim();
  if (!cypher) return;
  const reason = cypherWriteReason(cypher);
  if (reason !== undefined) {
    throw new ConnectorError(
      'invalid_config',
      `Only read-only Cypher queries are allowed: ${reason}. Nothing was sent to the server.`,
    );
  }
}

async function* readGraph(
  config: Neo4jConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<ParsedRecord[]> {
  refuseWrites(selection);
  const { label } = endpoint(config);
  const collisions = new CollisionLog();
  let connection: Connection | undefined;
  let session: Session | undefined;
  try {
    connection = await connect(config, ctx);
    const query = selectedQuery(selection, connection.neo4j);
    session = readSession(connection, config);
    if (selection.label) {
      const labels = await names(session, 'CALL db.labels() YIELD label RETURN label', 'label');
      const wanted = selection.label.trim();
      if (!labels.includes(wanted)) {
        throw new ConnectorError('not_found', `The label "${wanted}" does not exist in ${label}.`);
      }
      const nodes = await count(session, `MATCH (n:${quoteName(wanted)}) RETURN count(n) AS count`);
      if (nodes > MAX_ROWS) throw tooManyRows(`The label "${wanted}" has ${nodes} nodes`);
    }
    let batch: ParsedRecord[] = [];
    let rows = 0;
    for await (const record of session.run(query.text)) {
      ctx.signal?.throwIfAborted();
      rows += 1;
      if (rows > MAX_ROWS) throw tooManyRows('The query yields');
      const flat = flattenRecord(query.row(record));
      collisions.add(flat.collisions);
      batch.push(flat.record);
      if (batch.length >= ctx.batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } catch (error) {
    throw classifyNeo4jError(error, label);
  } finally {
    await session?.close().catch(() => undefined);
    await connection?.driver.close().catch(() => undefined);
    const warning = collisions.message();
    if (warning) ctx.warn(warning);
  }
}

function tooManyRows(what: string): ConnectorError {
  return new ConnectorError(
    'invalid_config',
    `${what} more than one read takes (${MAX_ROWS} rows); narrow it with a read-only cypher query (WHERE, LIMIT).`,
  );
}

export const neo4jDriver: ConnectorDriver<Neo4jConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    return withSession(config, ctx, async (session, connection) => {
      const info = await connection.driver.getServerInfo(
        config.database ? { database: config.database } : {},
      );
      // A query in the configured database: a wrong database name fails here, not at the first read.
      await session.run('RETURN 1 AS ok');
      const agent = info.agent ?? 'Neo4j';
      const version = /^Neo4j\/(.+)$/.exec(agent)?.[1] ?? agent;
      const database = config.database ?? 'the default database';
      const bolt = info.protocolVersion?.toString() ?? 'unknown';
      return {
        message: `Connected to Neo4j ${version} at ${endpoint(config).label} (Bolt ${bolt}), ${database}.`,
        details: {
          server_version: version,
          bolt_version: bolt,
          ...(config.database ? { database: config.database } : {}),
        },
      };
    });
  },
  browse,
  readRows(config, selection, ctx) {
    return limitBatches(readGraph(config, selection, ctx), selection.limit);
  },
};

function boltUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseUrl(value);
  if (parsed === undefined || !['bolt:', 'neo4j:'].includes(parsed.protocol) || parsed.hostname === '') {
    return 'must be a bolt://host:port or neo4j://host:port URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials; use username and password';
  if ((parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search || parsed.hash) {
    return 'must be only scheme, host and port (the database goes in database)';
  }
  return undefined;
}

export class Neo4jConnectorConfig extends ConnectorConfig<Neo4jConfig> {
  @ConfigString({
    required: true,
    aliases: ['uri'],
    checks: [boltUrlProblem],
    description: 'The server, bolt://host:port or neo4j://host:port (port 7687 by default).',
  })
  url!: string;

  @ConfigString({ required: true, aliases: ['user'] })
  username!: string;

  @ConfigString({ secret: true })
  password?: string;

  @ConfigString({
    aliases: ['db'],
    checks: [
      (value) =>
        typeof value === 'string' && !/^[A-Za-z][A-Za-z0-9.-]{0,62}$/.test(value)
          ? 'must be a Neo4j database name (letters, digits, "." and "-", starting with a letter)'
          : undefined,
    ],
    description: "The database sessions use; the server's default database when absent.",
  })
  database?: string;

  toConfig(): Neo4jConfig {
    return storedFields<Neo4jConfig>(this);
  }
}

export const neo4jConnector = defineConnector({
  name: 'neo4j',
  family: 'graph',
  config: Neo4jConnectorConfig,
  selection: { label: 'optional', cypher: 'optional' },
  selectionOneOf: ['label', 'cypher'],
  destinationFields: ['url'],
  driver: neo4jDriver,
});
