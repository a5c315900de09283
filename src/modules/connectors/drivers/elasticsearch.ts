import type { Client, estypes } from '@elastic/elasticsearch';
import { httpUrl, parseUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';
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
import { GuardedAgents, guardedAgents } from '../guarded-http-agent';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';

export interface ElasticsearchConfig {
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly api_key?: string;
  /** The CA certificate (PEM) a self-signed cluster's TLS certificate chains to. */
  readonly ca_pem?: string;
}

const REQUEST_TIMEOUT_MS = 30_000;
export const PAGE_SIZE = 1000;
/** An index holding more documents than this is refused before reading rather than truncated. */
export const MAX_DOCUMENTS = 1_000_000;
const MAX_BROWSE_INDICES = 1000;
const MAX_BROWSE_COLUMNS = 500;
/** How long the point in time that keeps paging consistent lives between two pages. */
const PIT_KEEP_ALIVE = '2m';
const ID_COLUMN = '_id';

const loadElasticsearch = loadOnFirstUse(async () => await import('@elastic/elasticsearch'));

interface Connection {
  readonly client: Client;
  readonly agents: GuardedAgents;
  readonly label: string;
}

export function classifyElasticsearchError(
  error: unknown,
  label: string,
  agents?: GuardedAgents,
): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const network = classifyNetworkError(agents?.refusal ?? error, label);
  if (network) return network;
  const name = (error as Error | undefined)?.name;
  const message = errorMessage(error);
  if (name === 'ConnectionError') {
    return new ConnectorError('unreachable', `${label} is unreachable: ${message}`);
  }
  if (name === 'ProductNotSupportedError') {
    return new ConnectorError('remote_error', `${label} does not answer as Elasticsearch: ${message}`);
  }
  const meta = (error as { meta?: { statusCode?: number; body?: unknown } }).meta;
  const status = meta?.statusCode;
  const reason = errorReason(meta?.body) ?? message;
  if (status === 401 || status === 403) {
    return new ConnectorError('auth_failed', `Authentication failed at ${label}: ${reason}`);
  }
  if (status === 404) return new ConnectorError('not_found', `Not found at ${label}: ${reason}`);
  if (status === 408 || status === 504) {
    return new ConnectorError('timeout', `${label} did not answer in time: ${reason}`);
  }
  return new ConnectorError('remote_error', `${label} failed: ${reason}`);
}

function errorReason(body: unknown): string | undefined {
  if (!isPlainObject(body) || !isPlainObject(body.error)) return undefined;
  const { type, reason } = body.error;
  return [type, reason].filter((part) => typeof part === 'string').join(': ') || undefined;
}

async function connect(config: ElasticsearchConfig, ctx: DriverContext): Promise<Connection> {
  const url = new URL(config.url);
  const label = url.host;
  const agents = guardedAgents(
    ctx.egress,
    { purpose: 'connector', orgId: ctx.orgId },
    config.ca_pem ? { ca: config.ca_pem } : {},
  );
  const { Client, HttpConnection } = await loadElasticsearch();
  const auth = config.api_key
    ? { apiKey: config.api_key }
    : config.username !== undefined
      ? { username: config.username, password: config.password ?? '' }
      : undefined;
  // The guarded agents make every socket (and carry ca_pem): the client's default undici connection would bypass
  // the egress guard.
  const client = new Client({
    node: config.url,
    auth,
    Connection: HttpConnection,
    agent: () => (url.protocol === 'https:' ? agents.https : agents.http),
    maxRetries: 0,
    requestTimeout: REQUEST_TIMEOUT_MS,
    sniffOnStart: false,
  });
  return { client, agents, label };
}

async function withClient<T>(
  config: ElasticsearchConfig,
  ctx: DriverContext,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const connection = await connect(config, ctx);
  try {
    return await work(connection.client);
  } catch (error) {
    throw classifyElasticsearchError(error, connection.label, connection.agents);
  } finally {
    await connection.client.close();
  }
}

interface MappingProperty {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, MappingProperty>>;
}

/** Mapping properties as flat `a.b` columns, the names rows get once documents are flattened. */
export function mappingColumns(
  properties: Readonly<Record<string, MappingProperty>> | undefined,
  prefix = '',
): { name: string; type: string }[] {
  return Object.entries(properties ?? {}).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    if (property.properties !== undefined && property.type !== 'nested') {
      return mappingColumns(property.properties, `${path}.`);
    }
    return [{ name: path, type: property.type ?? 'object' }];
  });
}

async function browse(config: ElasticsearchConfig, ctx: DriverContext): Promise<BrowseResult> {
  return withClient(config, ctx, async (client) => {
    const indices = (await client.cat.indices({ format: 'json', expand_wildcards: 'open' }))
      .filter((index) => index.index !== undefined && !index.index.startsWith('.'))
      .sort((a, b) => String(a.index).localeCompare(String(b.index)));
    const shown = indices.slice(0, MAX_BROWSE_INDICES);
    const mappings =
      shown.length === 0 ? {} : await client.indices.getMapping({ index: '*', expand_wildcards: 'open' });
    const items: BrowseItem[] = shown.map((index) => {
      const name = String(index.index);
      const properties = mappings[name]?.mappings?.properties as Record<string, MappingProperty> | undefined;
      return {
        name,
        kind: 'index',
        rows: Number(index['docs.count'] ?? 0),
        columns: mappingColumns(properties).slice(0, MAX_BROWSE_COLUMNS),
      };
    });
    const more = indices.length > shown.length ? ` (the first ${shown.length} shown)` : '';
    return {
      items,
      total: indices.length,
      message: `Found ${indices.length} index(es)${more}.`,
      discovery: { indices: indices.length },
    };
  });
}

function requireIndex(selection: RowSelection): string {
  const index = selection.index?.trim();
  if (!index) {
    throw new ConnectorError('invalid_config', 'An Elasticsearch read needs an index (index).');
  }
  if (/[*,\s]/.test(index) || index.startsWith('_')) {
    throw new ConnectorError(
      'invalid_config',
      `"${index}" is not one index name: wildcards, lists and names starting with "_" are not read.`,
    );
  }
  return index;
}

function tooManyDocuments(index: string, total: number): ConnectorError {
  return new ConnectorError(
    'invalid_config',
    `The index "${index}" holds ${total} documents, more than one read takes (${MAX_DOCUMENTS}); ` +
      'onboard a smaller index, or a filtered alias or reindexed copy of it.',
  );
}

/** Every document of one index, in pages under a point in time (search_after on _shard_doc), as flat rows. */
async function* readDocuments(
  config: ElasticsearchConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<ParsedRecord[]> {
  const index = requireIndex(selection);
  const connection = await connect(config, ctx);
  const { client } = connection;
  const collisions = new CollisionLog();
  let pit: string | undefined;
  try {
    let current = (await client.openPointInTime({ index, keep_alive: PIT_KEEP_ALIVE })).id;
    pit = current;
    let after: unknown[] | undefined;
    let first = true;
    for (;;) {
      ctx.signal?.throwIfAborted();
      const page: estypes.SearchResponse<Record<string, unknown>> = await client.search<
        Record<string, unknown>
      >({
        size: PAGE_SIZE,
        pit: { id: current, keep_alive: PIT_KEEP_ALIVE },
        sort: [{ _shard_doc: 'asc' }],
        track_total_hits: first,
        ...(after ? { search_after: after as never } : {}),
      });
      if (page.pit_id) {
        current = page.pit_id;
        pit = current;
      }
      if (first) {
        const total = page.hits.total;
        const count = typeof total === 'number' ? total : (total?.value ?? 0);
        if (count > MAX_DOCUMENTS) throw tooManyDocuments(index, count);
        first = false;
      }
      const hits = page.hits.hits;
      if (hits.length === 0) break;
      const rows = hits.map((hit) => {
        const flat = flattenRecord({ [ID_COLUMN]: hit._id, ...(hit._source ?? {}) });
        collisions.add(flat.collisions);
        return flat.record;
      });
      yield rows;
      after = hits[hits.length - 1].sort;
      if (hits.length < PAGE_SIZE || after === undefined) break;
    }
  } catch (error) {
    throw classifyElasticsearchError(error, connection.label, connection.agents);
  } finally {
    if (pit !== undefined) await client.closePointInTime({ id: pit }).catch(() => undefined);
    await client.close();
    const warning = collisions.message();
    if (warning) ctx.warn(warning);
  }
}

export const elasticsearchDriver: ConnectorDriver<ElasticsearchConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    return withClient(config, ctx, async (client) => {
      const info = await client.info();
      const health = await client.cluster.health();
      const version = info.version.number;
      return {
        message:
          `Connected to Elasticsearch ${version}, cluster "${health.cluster_name}" ` +
          `(status ${health.status}, ${health.number_of_nodes} node(s)).`,
        details: {
          server_version: version,
          cluster_name: health.cluster_name,
          status: health.status,
          nodes: health.number_of_nodes,
        },
      };
    });
  },
  browse,
  readRows(config, selection, ctx) {
    return limitBatches(readDocuments(config, selection, ctx), selection.limit);
  },
};

const given = (value: unknown): boolean => typeof value === 'string';

export class ElasticsearchConnectorConfig extends ConnectorConfig<ElasticsearchConfig> {
  @ConfigString({
    required: true,
    checks: [
      httpUrl,
      (value) =>
        parseUrl(value as string)?.username || parseUrl(value as string)?.password
          ? 'must not carry credentials; use username and password or api_key'
          : undefined,
    ],
    description: 'The cluster, http(s)://host:9200.',
  })
  url!: string;

  @ConfigString({ aliases: ['user'] })
  username?: string;

  @ConfigString<ElasticsearchConnectorConfig>({
    secret: true,
    checks: [
      (value, config) =>
        given(value) && given(config.username)
          ? 'cannot be combined with username; use one of them'
          : undefined,
    ],
    description: 'An Elasticsearch API key (the encoded form), instead of username and password.',
  })
  api_key?: string;

  @ConfigString({
    checks: [
      (value) =>
        given(value) && !(value as string).includes('-----BEGIN CERTIFICATE-----')
          ? 'must be a PEM certificate'
          : undefined,
    ],
    description: 'The CA certificate (PEM) a self-signed cluster certificate chains to.',
  })
  ca_pem?: string;

  @ConfigString({ secret: true })
  password?: string;

  toConfig(): ElasticsearchConfig {
    return storedFields<ElasticsearchConfig>(this);
  }
}

export const elasticsearchConnector = defineConnector({
  name: 'elasticsearch',
  family: 'search',
  aliases: [{ name: 'elastic' }],
  config: ElasticsearchConnectorConfig,
  selection: { index: 'required' },
  destinationFields: ['url', 'ca_pem'],
  driver: elasticsearchDriver,
});
