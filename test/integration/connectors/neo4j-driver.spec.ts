import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { Neo4jConfig, neo4jDriver } from '../../../src/modules/connectors/drivers/neo4j';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { CheckedDestination, EgressContext } from '../../../src/modules/egress/egress.types';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { Neo4jStandIn, startNeo4jStandIn } from '../../support/neo4j-stand-in';
import { TestEgressGuard } from '../../support/test-egress-guard';

/**
 * A guard that resolves `graph.internal` (a name no DNS server knows) to the stand-in's address: the driver can only
 * reach the stand-in through the address the guard checked, never by a lookup of its own.
 */
class PinningGuard extends TestEgressGuard {
  override async checkDestination(
    host: string,
    port: number,
    context: EgressContext,
  ): Promise<CheckedDestination> {
    if (host !== 'graph.internal') return super.checkDestination(host, port, context);
    this.attempts.push({ host, port, allowed: true, purpose: context.purpose });
    return { host, port, address: '127.0.0.1', family: 4 };
  }
}

function context(egress: TestEgressGuard, warnings: string[] = []): DriverContext {
  return {
    orgId: 'org_1',
    egress,
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: tmpdir(),
    batchSize: 2,
    parseLimits: parseLimits(),
    warn: (message) => warnings.push(message),
  };
}

const config = (raw: Record<string, unknown>): Neo4jConfig =>
  normalizeConfig({ type: 'neo4j' }, raw).values as Neo4jConfig;

describe('neo4j driver (Bolt stand-in)', () => {
  let graph: Neo4jStandIn;
  let allowed: DriverContext;
  let good: Neo4jConfig;

  async function readAll(
    selection: RowSelection,
    cfg = good,
    ctx = allowed,
  ): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of neo4jDriver.readRows(cfg, selection, ctx)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    graph = await startNeo4jStandIn({
      username: 'neo4j',
      password: 'secret',
      version: '5.26.1',
      databases: ['neo4j', 'sales'],
      nodes: [
        { labels: ['Customer'], properties: { name: 'Ada', since: 2019, score: 9007199254740993n } },
        { labels: ['Customer', 'Vip'], properties: { name: 'Grace', address: { city: 'Oslo' } } },
        { labels: ['Product'], properties: { sku: 'p-1', price: 12.5 } },
        { labels: ['Customer'], properties: { name: 'Linus', tags: ['a', 'b'] } },
      ],
      relationships: [
        { type: 'BOUGHT', from: 0, to: 2 },
        { type: 'BOUGHT', from: 1, to: 2 },
        { type: 'KNOWS', from: 0, to: 1 },
      ],
      queries: {
        'MATCH (c:Customer)-[:BOUGHT]->(p:Product) RETURN c.name AS customer, p.sku AS sku ORDER BY customer':
          {
            fields: ['customer', 'sku'],
            rows: [
              ['Ada', 'p-1'],
              ['Grace', 'p-1'],
            ],
          },
        'RETURN custom.rewire() AS done': { fields: ['done'], rows: [[true]], writes: true },
      },
    });
    allowed = context(new TestEgressGuard([`127.0.0.1:${graph.port}`]));
    good = config({ url: graph.url, username: 'neo4j', password: 'secret' });
  });

  afterAll(async () => {
    await graph.close();
  });

  describe('config', () => {
    it('takes url (or uri), username, password and database', () => {
      expect(config({ uri: 'neo4j://graph:7687', user: 'neo4j', password: 'p', database: 'sales' })).toEqual({
        url: 'neo4j://graph:7687',
        username: 'neo4j',
        password: 'p',
        database: 'sales',
      });
    });

    it.each([
      [{ username: 'n' }, 'config.url', 'is required'],
      [
        { url: 'http://graph:7474', username: 'n' },
        'config.url',
        'must be a bolt://host:port or neo4j://host:port URL',
      ],
      [
        { url: 'bolt://u:p@graph', username: 'n' },
        'config.url',
        'must not carry credentials; use username and password',
      ],
      [
        { url: 'bolt://graph/sales', username: 'n' },
        'config.url',
        expect.stringMatching(/^must be only scheme/),
      ],
      [{ url: 'bolt://graph' }, 'config.username', 'is required'],
      [
        { url: 'bolt://graph', username: 'n', database: 'a b' },
        'config.database',
        expect.stringMatching(/^must be/),
      ],
    ])('refuses %j', (raw, field, problem) => {
      expect(() => normalizeConfig({ type: 'neo4j' }, raw)).toThrow(
        expect.objectContaining({ details: [{ field, problem }] }),
      );
    });
  });

  it('tests connectivity and reports the server version', async () => {
    const outcome = await neo4jDriver.test(good, allowed);
    expect(outcome.message).toBe(
      `Connected to Neo4j 5.26.1 at 127.0.0.1:${graph.port} (Bolt 5.4), the default database.`,
    );
    expect(outcome.details).toEqual({ server_version: '5.26.1', bolt_version: '5.4' });
  });

  it('browses labels and relationship types with their counts', async () => {
    const start = graph.runs.length;
    const result = await neo4jDriver.browse({ ...good, database: 'sales' }, allowed);
    expect(result.items).toEqual([
      { name: 'Customer', kind: 'label', rows: 3 },
      { name: 'Product', kind: 'label', rows: 1 },
      { name: 'Vip', kind: 'label', rows: 1 },
      { name: 'BOUGHT', kind: 'relationship_type', rows: 2 },
      { name: 'KNOWS', kind: 'relationship_type', rows: 1 },
    ]);
    expect(result.message).toBe('Found 3 label(s) and 2 relationship type(s).');
    expect(graph.runs.slice(start).filter((run) => run.mode !== 'r' || run.db !== 'sales')).toEqual([]);
  });

  it('reads the nodes of a label, properties as columns, in READ sessions', async () => {
    const warnings: string[] = [];
    const rows = await readAll(
      { label: 'Customer' },
      good,
      context(allowed.egress as TestEgressGuard, warnings),
    );
    expect(rows).toEqual([
      { _id: '4:standin:0', name: 'Ada', since: 2019, score: '9007199254740993' },
      { _id: '4:standin:1', name: 'Grace', 'address.city': 'Oslo' },
      { _id: '4:standin:3', name: 'Linus', tags: ['a', 'b'] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('reads the result of a read-only Cypher query, sent in a READ session', async () => {
    const query =
      'MATCH (c:Customer)-[:BOUGHT]->(p:Product) RETURN c.name AS customer, p.sku AS sku ORDER BY customer';
    expect(await readAll({ cypher: query })).toEqual([
      { customer: 'Ada', sku: 'p-1' },
      { customer: 'Grace', sku: 'p-1' },
    ]);
    expect(graph.runs.at(-1)).toEqual({ query, mode: 'r' });
  });

  it('stops early at a row limit', async () => {
    expect(await readAll({ label: 'Customer', limit: 1 })).toEqual([
      { _id: '4:standin:0', name: 'Ada', since: 2019, score: '9007199254740993' },
    ]);
  });

  describe('bad input', () => {
    it('refuses a writing query before connecting', async () => {
      const before = graph.connections();
      const guard = new TestEgressGuard([`127.0.0.1:${graph.port}`]);
      expect(
        await connectorFailure(
          readAll({ cypher: "MATCH (n:Customer) SET n.name = 'x' RETURN n" }, good, context(guard)),
        ),
      ).toMatchObject({
        errorType: 'invalid_config',
        recoverable: true,
        message:
          'Only read-only Cypher queries are allowed: it contains SET. Nothing was sent to the server.',
      });
      expect(graph.connections()).toBe(before);
      expect(guard.attempts).toEqual([]);
    });

    it('leaves a write the check cannot see to the READ session, which the server refuses', async () => {
      expect(await connectorFailure(readAll({ cypher: 'RETURN custom.rewire() AS done' }))).toMatchObject({
        errorType: 'invalid_config',
        recoverable: true,
        message: 'Only read-only queries are allowed: Writing in read access mode not allowed.',
      });
    });

    it('says which label does not exist', async () => {
      expect(await connectorFailure(readAll({ label: 'Nope' }))).toMatchObject({
        errorType: 'not_found',
        message: `The label "Nope" does not exist in 127.0.0.1:${graph.port}.`,
      });
    });

    it('needs exactly one of label and cypher', async () => {
      expect(await connectorFailure(readAll({}))).toMatchObject({ errorType: 'invalid_config' });
    });

    it('reports wrong credentials as auth_failed', async () => {
      expect(await connectorFailure(neo4jDriver.test({ ...good, password: 'wrong' }, allowed))).toMatchObject(
        {
          errorType: 'auth_failed',
          recoverable: true,
          message: expect.stringMatching(/^Authentication failed: The client is unauthorized/),
        },
      );
    });

    it('reports an unknown database as not_found', async () => {
      expect(await connectorFailure(neo4jDriver.test({ ...good, database: 'nope' }, allowed))).toMatchObject({
        errorType: 'not_found',
        message: expect.stringContaining("Database name: 'nope'"),
      });
    });

    it('reports an unreachable host', async () => {
      const closed = await startNeo4jStandIn({ username: 'n', password: 'p' });
      await closed.close();
      const guard = new TestEgressGuard([`127.0.0.1:${closed.port}`]);
      expect(
        await connectorFailure(neo4jDriver.test({ ...good, url: closed.url }, context(guard))),
      ).toMatchObject({
        errorType: 'unreachable',
        recoverable: true,
        message: expect.stringContaining('ECONNREFUSED'),
      });
    });

    it('asks the egress guard, and connects to nothing it refuses', async () => {
      const guard = new TestEgressGuard([]);
      const before = graph.connections();
      expect(await connectorFailure(neo4jDriver.test(good, context(guard)))).toMatchObject({
        errorType: 'egress_blocked',
        recoverable: false,
      });
      expect(guard.attempts).toEqual([
        { host: '127.0.0.1', port: graph.port, allowed: false, purpose: 'connector' },
      ]);
      expect(graph.connections()).toBe(before);
    });

    it('connects only to the address the guard checked, doing no lookup of its own', async () => {
      const guard = new PinningGuard([]);
      const outcome = await neo4jDriver.test(
        { ...good, url: `neo4j://graph.internal:${graph.port}` },
        context(guard),
      );
      expect(outcome.message).toMatch(/^Connected to Neo4j 5\.26\.1 at graph\.internal:\d+/);
      expect(guard.attempts).toEqual([
        { host: 'graph.internal', port: graph.port, allowed: true, purpose: 'connector' },
      ]);
    });
  });
});
