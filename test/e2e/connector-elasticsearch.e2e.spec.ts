import { signupAccount } from '../factories/accounts';
import { ElasticsearchStandIn, startElasticsearchStandIn } from '../support/elasticsearch-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect → query for elasticsearch, against a loopback stand-in. */
describe('connector sources over HTTP: elasticsearch', () => {
  let es: ElasticsearchStandIn;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    es = await startElasticsearchStandIn({
      sales: {
        mappings: { properties: { region: { type: 'keyword' }, units: { type: 'long' } } },
        documents: ['north', 'south', 'east'].map((region, i) => ({
          _id: `d${i + 1}`,
          _source: { region, units: i + 1 },
        })),
      },
    });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${es.port}` });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    await es.close();
  });

  it('creates, tests, browses and onboards the documents of an index', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'search',
        connector_type: 'elasticsearch',
        config: { url: es.url, username: 'elastic', password: 'secret' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({ url: es.url, username: 'elastic', password: '********' });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });
    expect(tested.body.message).toMatch(/^Connected to Elasticsearch 8\.15\.0/);

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toContainEqual(
      expect.objectContaining({ name: 'sales', kind: 'index', rows: 3 }),
    );

    const missing = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'elasticsearch', dataset_name: 'no_index', connection_id: id },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([
      { field: 'index', problem: 'is required for elasticsearch connectors' },
    ]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'elasticsearch', dataset_name: 'sales', connection_id: id, index: 'sales' },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 3, columns: 3 } });
    const rows = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: connected.body.dataset_id, select: ['_id', 'region', 'units'], limit: 10 },
    });
    expect(rows.body.rows).toEqual([
      { _id: 'd1', region: 'north', units: 1 },
      { _id: 'd2', region: 'south', units: 2 },
      { _id: 'd3', region: 'east', units: 3 },
    ]);

    const absent = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'elasticsearch', dataset_name: 'absent', connection_id: id, index: 'nope' },
    });
    expect(absent.body).toMatchObject({ status: 'failed' });
    expect(absent.body.message).toContain('index_not_found_exception');
  });
});
