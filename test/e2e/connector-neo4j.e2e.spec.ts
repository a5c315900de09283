import { signupAccount } from '../factories/accounts';
import { Neo4jStandIn, startNeo4jStandIn } from '../support/neo4j-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect (label and cypher) → query for neo4j, against a loopback Bolt stand-in. */
describe('connector sources over HTTP: neo4j', () => {
  let graph: Neo4jStandIn;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    graph = await startNeo4jStandIn({
      username: 'neo4j',
      password: 'secret',
      version: '5.26.1',
      nodes: [
        { labels: ['Customer'], properties: { name: 'Ada', region: 'north', orders: 3 } },
        { labels: ['Customer'], properties: { name: 'Grace', region: 'south', orders: 5 } },
        { labels: ['Product'], properties: { sku: 'p-1' } },
      ],
      relationships: [{ type: 'BOUGHT', from: 0, to: 2 }],
      queries: {
        'MATCH (c:Customer) RETURN c.region AS region, sum(c.orders) AS orders ORDER BY region': {
          fields: ['region', 'orders'],
          rows: [
            ['north', 3],
            ['south', 5],
          ],
        },
      },
    });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${graph.port}` });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const connect = (id: string, body: Record<string, unknown>) =>
    t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'neo4j', connection_id: id, ...body },
    });

  it('creates, tests, browses and onboards the nodes of a label and a read-only query', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'graph',
        connector_type: 'neo4j',
        config: { url: graph.url, username: 'neo4j', password: 'secret' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({ url: graph.url, username: 'neo4j', password: '********' });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });
    expect(tested.body.message).toMatch(/^Connected to Neo4j 5\.26\.1 at 127\.0\.0\.1:\d+ \(Bolt 5\.4\)/);

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toEqual([
      expect.objectContaining({ name: 'Customer', kind: 'label', rows: 2 }),
      expect.objectContaining({ name: 'Product', kind: 'label', rows: 1 }),
      expect.objectContaining({ name: 'BOUGHT', kind: 'relationship_type', rows: 1 }),
    ]);

    const neither = await connect(id, { dataset_name: 'none' });
    expect(neither.status).toBe(422);
    expect(neither.body.error.details).toEqual([
      { field: 'label', problem: 'give exactly one of label, cypher for neo4j connectors' },
    ]);
    const wrongField = await connect(id, { dataset_name: 'x', label: 'Customer', index: 'sales' });
    expect(wrongField.status).toBe(422);
    expect(wrongField.body.error.details).toEqual([
      { field: 'index', problem: 'does not apply to neo4j connectors' },
    ]);

    const customers = await connect(id, { dataset_name: 'customers', label: 'Customer' });
    expect(customers.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 4 } });
    const rows = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: customers.body.dataset_id, select: ['name', 'region', 'orders'], limit: 10 },
    });
    expect(rows.body.rows).toEqual([
      { name: 'Ada', region: 'north', orders: 3 },
      { name: 'Grace', region: 'south', orders: 5 },
    ]);

    const cypher = 'MATCH (c:Customer) RETURN c.region AS region, sum(c.orders) AS orders ORDER BY region';
    const byRegion = await connect(id, { dataset_name: 'by_region', cypher });
    expect(byRegion.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
    expect(graph.runs.filter((run) => run.query === cypher)).toEqual([{ query: cypher, mode: 'r' }]);

    const sent = graph.runs.length;
    const writing = await connect(id, { dataset_name: 'w', cypher: 'MATCH (c:Customer) DETACH DELETE c' });
    expect(writing.body).toMatchObject({ status: 'failed' });
    expect(writing.body.message).toContain('Only read-only Cypher queries are allowed: it contains DELETE');
    expect(graph.runs.length).toBe(sent);

    const absent = await connect(id, { dataset_name: 'absent', label: 'Nope' });
    expect(absent.body).toMatchObject({ status: 'failed' });
    expect(absent.body.message).toContain('The label "Nope" does not exist');
  });

  it('reports wrong credentials and an unreachable host with their error types', async () => {
    const wrong = await t.request('POST', '/v1/connectors/test', {
      token,
      body: { connector_type: 'neo4j', config: { url: graph.url, username: 'neo4j', password: 'nope' } },
    });
    expect(wrong.body).toMatchObject({ success: false, error_type: 'auth_failed', recoverable: true });

    const blocked = await t.request('POST', '/v1/connectors/test', {
      token,
      body: { connector_type: 'neo4j', config: { url: 'bolt://127.0.0.1:1', username: 'neo4j' } },
    });
    expect(blocked.body).toMatchObject({ success: false, error_type: 'egress_blocked', recoverable: false });
  });
});
