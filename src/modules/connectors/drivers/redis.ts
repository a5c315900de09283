import type { RedisClientType } from 'redis';
import { defineConnector } from '../connector-descriptor';
import {
  ConfigBoolean,
  ConfigInteger,
  ConfigPort,
  ConfigString,
  ConnectorConfig,
  storedFields,
} from '../config-fields';
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
import { parseExactJson } from '../formats/exact-json';
import { emptyRecord, flattenRecord, isPlainObject } from '../formats/records';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';

export interface RedisConfig {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly db: number;
  readonly tls: boolean;
}

const CONNECT_TIMEOUT_MS = 10_000;
const SCAN_COUNT = 1000;
/** Browse samples this many keys: SCAN walks the whole key space, so a big database is only sampled. */
export const BROWSE_SCAN_KEYS = 10_000;
const MAX_BROWSE_PATTERNS = 1000;
const BROWSE_SCAN_CALLS = 40;
export const DEFAULT_MAX_KEYS = 100_000;
export const MAX_KEYS = 1_000_000;
/** SCAN with MATCH still walks every key: bounds one read so a pattern over millions of keys stops with a message. */
export const MAX_SCAN_CALLS = 5000;
const KEY_COLUMN = '_key';

const loadRedis = loadOnFirstUse(async () => await import('redis'));

type Client = RedisClientType;

export function classifyRedisError(error: unknown, endpoint: string): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const network = classifyNetworkError(error, endpoint);
  if (network) return network;
  const message = errorMessage(error);
  if (/^(WRONGPASS|NOAUTH|NOPERM)\b/.test(message) || /without any password configured/i.test(message)) {
    return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  }
  if (/DB index is out of range/i.test(message)) {
    return new ConnectorError('invalid_config', `${endpoint} has no such database: ${message}`);
  }
  if (/Socket closed|connection.*closed/i.test(message)) {
    return new ConnectorError('unreachable', `${endpoint} closed the connection: ${message}`);
  }
  return new ConnectorError('remote_error', `${endpoint} failed: ${message}`);
}

async function openClient(config: RedisConfig, ctx: DriverContext): Promise<Client> {
  const destination = await ctx.egress.connect(config.host, config.port, {
    purpose: 'connector',
    orgId: ctx.orgId,
  });
  const { createClient } = await loadRedis();
  // The socket goes to the checked address; the host name stays the TLS servername.
  const socket = {
    host: destination.address,
    port: config.port,
    connectTimeout: CONNECT_TIMEOUT_MS,
    reconnectStrategy: false as const,
    ...(config.tls ? { tls: true as const, servername: destination.servername ?? config.host } : {}),
  };
  const client = createClient({
    socket,
    username: config.username,
    password: config.password,
    database: config.db,
    disableOfflineQueue: true,
  }) as unknown as Client;
  // Failures reach the awaiting command; without a listener node-redis would raise them again as unhandled.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    client.destroy();
    throw error;
  }
}

async function withClient<T>(
  config: RedisConfig,
  ctx: DriverContext,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  let client: Client | undefined;
  try {
    client = await openClient(config, ctx);
    return await work(client);
  } catch (error) {
    throw classifyRedisError(error, `${config.host}:${config.port}`);
  } finally {
    client?.destroy();
  }
}

function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

export function keyPattern(key: string): string {
  const cut = key.lastIndexOf(':');
  return cut < 0 ? key : `${key.slice(0, cut + 1)}*`;
}

interface ScanOutcome {
  readonly keys: readonly string[];
  readonly complete: boolean;
}

async function* scanKeys(
  client: Client,
  match: string,
  maxCalls: number,
  ctx: DriverContext,
): AsyncGenerator<string[], boolean> {
  let cursor = '0';
  for (let calls = 0; calls < maxCalls; calls += 1) {
    ctx.signal?.throwIfAborted();
    const reply = await client.scan(cursor, { MATCH: match, COUNT: SCAN_COUNT });
    cursor = String(reply.cursor);
    if (reply.keys.length > 0) yield reply.keys.map(String);
    if (cursor === '0') return true;
  }
  return false;
}

async function sampleKeys(client: Client, ctx: DriverContext): Promise<ScanOutcome> {
  const keys = new Set<string>();
  const scan = scanKeys(client, '*', BROWSE_SCAN_CALLS, ctx);
  for (;;) {
    const next = await scan.next();
    if (next.done) return { keys: [...keys], complete: next.value };
    for (const key of next.value) if (keys.size < BROWSE_SCAN_KEYS) keys.add(key);
    if (keys.size >= BROWSE_SCAN_KEYS) return { keys: [...keys], complete: false };
  }
}

async function keyTypes(client: Client, keys: readonly string[]): Promise<string[]> {
  return Promise.all(keys.map((key) => client.type(key)));
}

async function browse(config: RedisConfig, ctx: DriverContext): Promise<BrowseResult> {
  return withClient(config, ctx, async (client) => {
    const total = await client.dbSize();
    const sample = await sampleKeys(client, ctx);
    const patterns = new Map<string, { count: number; types: Set<string> }>();
    for (let i = 0; i < sample.keys.length; i += SCAN_COUNT) {
      const keys = sample.keys.slice(i, i + SCAN_COUNT);
      const types = await keyTypes(client, keys);
      keys.forEach((key, index) => {
        const entry = patterns.get(keyPattern(key)) ?? { count: 0, types: new Set<string>() };
        entry.count += 1;
        entry.types.add(types[index]);
        patterns.set(keyPattern(key), entry);
      });
    }
    const items: BrowseItem[] = [...patterns.entries()]
      .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
      .slice(0, MAX_BROWSE_PATTERNS)
      .map(([name, entry]) => ({
        name,
        kind: 'key_pattern',
        type: entry.types.size === 1 ? [...entry.types][0] : [...entry.types].sort().join('|'),
        rows: entry.count,
      }));
    const scope = sample.complete
      ? `all ${sample.keys.length} keys`
      : `a sample of ${sample.keys.length} of ${total} keys (SCAN is bounded at ${BROWSE_SCAN_KEYS})`;
    return {
      items,
      total: items.length,
      message: `Found ${patterns.size} key pattern(s) in ${scope} of database ${config.db}.`,
      discovery: {
        db: config.db,
        keys_total: total,
        keys_scanned: sample.keys.length,
        complete: sample.complete,
      },
    };
  });
}

/** hGetAll would lose a `__proto__` field on an object; read as a Map, every name is kept. */
async function hashFields(client: Client, key: string): Promise<Record<string, unknown>> {
  const { RESP_TYPES } = await loadRedis();
  const reply = await client.withTypeMapping({ [RESP_TYPES.MAP]: Map }).hGetAll(key);
  const fields = emptyRecord();
  for (const [name, value] of reply) fields[String(name)] = String(value);
  return fields;
}

async function rowOf(client: Client, key: string, type: string): Promise<ParsedRecord | undefined> {
  let value: Record<string, unknown>;
  if (type === 'hash') value = await hashFields(client, key);
  else if (type === 'string') {
    const text = (await client.get(key)) ?? '';
    value = { value: text };
    try {
      const parsed = parseExactJson(text);
      value = isPlainObject(parsed) ? parsed : { value: parsed };
    } catch {
      // Not JSON: kept as the text.
    }
  } else return undefined;
  return { [KEY_COLUMN]: key, ...value };
}

async function* readKeys(
  config: RedisConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<ParsedRecord[]> {
  const pattern = selection.pattern;
  if (pattern === undefined || pattern.trim() === '') {
    throw new ConnectorError(
      'invalid_config',
      'A Redis read needs a key pattern (pattern), such as "sale:*".',
    );
  }
  const maxKeys = Math.min(selection.maxKeys ?? DEFAULT_MAX_KEYS, MAX_KEYS);
  const skipped = new Map<string, number>();
  const collisions = new CollisionLog();
  let client: Client | undefined;
  try {
    const connected = await openClient(config, ctx);
    client = connected;
    const seen = new Set<string>();
    const scan = scanKeys(connected, pattern, MAX_SCAN_CALLS, ctx);
    let batch: ParsedRecord[] = [];
    for (;;) {
      const next = await scan.next();
      if (next.done) {
        if (!next.value) throw scanBoundReached(pattern);
        break;
      }
      const fresh = next.value.filter((key) => !seen.has(key));
      for (const key of fresh) seen.add(key);
      if (seen.size > maxKeys) throw tooManyKeys(pattern, maxKeys);
      const types = await keyTypes(connected, fresh);
      const rows = await Promise.all(fresh.map((key, index) => rowOf(connected, key, types[index])));
      rows.forEach((row, index) => {
        if (row === undefined) {
          skipped.set(types[index], (skipped.get(types[index]) ?? 0) + 1);
          return;
        }
        const flat = flattenRecord(row);
        collisions.add(flat.collisions);
        batch.push(flat.record);
      });
      if (batch.length >= ctx.batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } catch (error) {
    throw classifyRedisError(error, `${config.host}:${config.port}`);
  } finally {
    client?.destroy();
    if (skipped.size > 0) {
      const counts = [...skipped.entries()].map(([type, count]) => `${count} ${type}`).join(', ');
      ctx.warn(`Skipped keys that are neither hashes nor strings: ${counts}.`);
    }
    const warning = collisions.message();
    if (warning) ctx.warn(warning);
  }
}

function scanBoundReached(pattern: string): ConnectorError {
  return new ConnectorError(
    'invalid_config',
    `Stopped after scanning about ${MAX_SCAN_CALLS * SCAN_COUNT} keys for "${pattern}": Redis walks the whole key ` +
      'space for a pattern, and this database is larger than one read may scan. Keep these keys in a database ' +
      'number (db) of their own.',
  );
}

function tooManyKeys(pattern: string, maxKeys: number): ConnectorError {
  return new ConnectorError(
    'invalid_config',
    `The pattern "${pattern}" matches more than ${maxKeys} keys; narrow the pattern or raise max_keys (at most ` +
      `${MAX_KEYS}).`,
  );
}

export const redisDriver: ConnectorDriver<RedisConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    return withClient(config, ctx, async (client) => {
      await client.ping();
      const info = String(await client.info('server'));
      const keys = await client.dbSize();
      const version = infoField(info, 'redis_version') ?? 'unknown';
      return {
        message: `Connected to Redis ${version} at ${config.host}:${config.port}, database ${config.db} (${keys} keys).`,
        details: { server_version: version, mode: infoField(info, 'redis_mode'), db: config.db, keys },
      };
    });
  },
  browse,
  readRows(config, selection, ctx) {
    return limitBatches(readKeys(config, selection, ctx), selection.limit);
  },
};

export class RedisConnectorConfig extends ConnectorConfig<RedisConfig> {
  @ConfigString({ default: 'localhost' })
  host?: string;

  @ConfigPort({ default: 6379 })
  port?: number;

  @ConfigString({ aliases: ['user'], description: 'An ACL user (Redis 6+).' })
  username?: string;

  @ConfigString({ secret: true })
  password?: string;

  @ConfigInteger({ min: 0, default: 0, description: 'The logical database number.' })
  db?: number;

  @ConfigBoolean({ default: false })
  tls?: boolean;

  toConfig(): RedisConfig {
    return storedFields<RedisConfig>(this);
  }
}

export const redisConnector = defineConnector({
  name: 'redis',
  family: 'key_value',
  config: RedisConnectorConfig,
  selection: { pattern: 'required', max_keys: 'optional' },
  destinationFields: ['host', 'port', 'tls'],
  driver: redisDriver,
});
