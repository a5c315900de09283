import { tmpdir } from 'node:os';
import { createClient } from 'redis';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { BROWSE_SCAN_KEYS, RedisConfig, redisDriver } from '../../../src/modules/connectors/drivers/redis';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { TestEgressGuard } from '../../support/test-egress-guard';

/** A database of its own on the machine's Redis, and a key prefix of its own in it; both cleaned up. */
const DB = 13;
const PREFIX = `conn_test_${process.pid}_${Date.now()}`;

function context(rules: string[], warnings: string[] = []): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard(rules),
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: tmpdir(),
    batchSize: 2,
    parseLimits: parseLimits(),
    warn: (message) => warnings.push(message),
  };
}

const config = (extra: Record<string, unknown> = {}): RedisConfig =>
  normalizeConfig({ type: 'redis' }, { host: '127.0.0.1', db: DB, ...extra }).values as RedisConfig;

async function readAll(selection: RowSelection, ctx: DriverContext): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of redisDriver.readRows(config(), selection, ctx)) out.push(...batch);
  return out;
}

describe('redis driver (local Redis)', () => {
  const admin = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: DB });
  const allowed = context(['127.0.0.1:6379']);

  beforeAll(async () => {
    await admin.connect();
    await admin.hSet(`${PREFIX}:sale:1`, { region: 'north', amount: '12.5' });
    await admin.hSet(`${PREFIX}:sale:2`, { region: 'south', amount: '7' });
    await admin.set(`${PREFIX}:sale:3`, JSON.stringify({ region: 'east', amount: 3, meta: { by: 'web' } }));
    await admin.set(`${PREFIX}:sale:4`, 'not json');
    await admin.rPush(`${PREFIX}:sale:5`, ['a', 'b']);
  });

  afterAll(async () => {
    let cursor = '0';
    do {
      const reply = await admin.scan(cursor, { MATCH: `${PREFIX}*`, COUNT: 1000 });
      cursor = String(reply.cursor);
      if (reply.keys.length > 0) await admin.del(reply.keys);
    } while (cursor !== '0');
    await admin.close();
  });

  it('applies the defaults an operator expects', () => {
    expect(normalizeConfig({ type: 'redis' }, {}).values).toEqual({
      host: 'localhost',
      port: 6379,
      db: 0,
      tls: false,
    });
  });

  it('tests with PING and reports the server version', async () => {
    const outcome = await redisDriver.test(config(), allowed);
    expect(outcome.message).toMatch(/^Connected to Redis \d+\.\d+/);
    expect(outcome.details).toEqual(expect.objectContaining({ db: DB, server_version: expect.any(String) }));
  });

  it('browses key patterns with their types and counts', async () => {
    const result = await redisDriver.browse(config(), allowed);
    const sales = result.items.find((item) => item.name === `${PREFIX}:sale:*`);
    expect(sales).toEqual(
      expect.objectContaining({ kind: 'key_pattern', rows: 5, type: 'hash|list|string' }),
    );
  });

  it('reads hashes and JSON values under a pattern as rows, skipping other types with a message', async () => {
    const warnings: string[] = [];
    const rows = await readAll({ pattern: `${PREFIX}:sale:*` }, context(['127.0.0.1:6379'], warnings));
    const byKey = Object.fromEntries(rows.map((row) => [row._key, row]));
    expect(Object.keys(byKey).sort()).toEqual([1, 2, 3, 4].map((n) => `${PREFIX}:sale:${n}`));
    expect(byKey[`${PREFIX}:sale:1`]).toEqual({ _key: `${PREFIX}:sale:1`, region: 'north', amount: '12.5' });
    expect(byKey[`${PREFIX}:sale:3`]).toEqual({
      _key: `${PREFIX}:sale:3`,
      region: 'east',
      amount: 3,
      'meta.by': 'web',
    });
    expect(byKey[`${PREFIX}:sale:4`]).toEqual({ _key: `${PREFIX}:sale:4`, value: 'not json' });
    expect(warnings).toEqual(['Skipped keys that are neither hashes nor strings: 1 list.']);
  });

  it('keeps a hash field named __proto__ as a column, as files do', async () => {
    await admin.sendCommand([
      'HSET',
      `${PREFIX}:proto:1`,
      '__proto__',
      'p',
      'constructor',
      'c',
      'plain',
      'x',
    ]);
    const [row] = await readAll({ pattern: `${PREFIX}:proto:*` }, allowed);
    expect(Object.keys(row).sort()).toEqual(['__proto__', '_key', 'constructor', 'plain']);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p');
  });

  it('refuses a pattern matching more keys than max_keys, with a message', async () => {
    const failure = await connectorFailure(readAll({ pattern: `${PREFIX}:sale:*`, maxKeys: 3 }, allowed));
    expect(failure.errorType).toBe('invalid_config');
    expect(failure.message).toContain('matches more than 3 keys');
  });

  it('needs a pattern to read', async () => {
    const failure = await connectorFailure(readAll({}, allowed));
    expect(failure.errorType).toBe('invalid_config');
  });

  it('samples a big key space instead of scanning it all, and says so', async () => {
    const keys = BROWSE_SCAN_KEYS + 50;
    for (let start = 0; start < keys; start += 1000) {
      const batch = admin.multi();
      for (let i = start; i < Math.min(keys, start + 1000); i += 1) batch.set(`${PREFIX}:bulk:${i}`, '1');
      await batch.exec();
    }
    const result = await redisDriver.browse(config(), allowed);
    expect(result.discovery.complete).toBe(false);
    expect(result.discovery.keys_scanned).toBeLessThanOrEqual(BROWSE_SCAN_KEYS);
    expect(result.message).toContain(`SCAN is bounded at ${BROWSE_SCAN_KEYS}`);
  });

  it('reports wrong credentials as auth_failed', async () => {
    const failure = await connectorFailure(
      redisDriver.test(config({ username: 'nobody', password: 'wrong' }), allowed),
    );
    expect(failure.errorType).toBe('auth_failed');
    expect(failure.message).not.toContain('wrong');
  });

  it('reports a closed port as unreachable, and a destination the policy refuses as egress_blocked', async () => {
    const closed = await connectorFailure(redisDriver.test(config({ port: 1 }), context(['127.0.0.1:1'])));
    expect(closed).toEqual(expect.objectContaining({ errorType: 'unreachable', recoverable: true }));
    const blocked = await connectorFailure(redisDriver.test(config(), context([])));
    expect(blocked).toEqual(expect.objectContaining({ errorType: 'egress_blocked', recoverable: false }));
  });
});
