import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import {
  ElasticsearchConfig,
  elasticsearchDriver,
  PAGE_SIZE,
} from '../../../src/modules/connectors/drivers/elasticsearch';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { ElasticsearchStandIn, startElasticsearchStandIn } from '../../support/elasticsearch-stand-in';
import { TestEgressGuard } from '../../support/test-egress-guard';

const DOCUMENTS = PAGE_SIZE * 2 + 5;

function context(rules: string[], warnings: string[] = []): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard(rules),
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: tmpdir(),
    batchSize: 500,
    parseLimits: parseLimits(),
    warn: (message) => warnings.push(message),
  };
}

describe('elasticsearch driver (loopback stand-in)', () => {
  let es: ElasticsearchStandIn;
  let allowed: DriverContext;
  const config = (extra: Record<string, unknown> = {}): ElasticsearchConfig =>
    normalizeConfig(
      { type: 'elasticsearch' },
      { url: es.url, username: 'elastic', password: 'secret', ...extra },
    ).values as ElasticsearchConfig;

  async function readAll(selection: RowSelection, settings = config()): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of elasticsearchDriver.readRows(settings, selection, allowed)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    es = await startElasticsearchStandIn({
      sales: {
        mappings: {
          properties: {
            region: { type: 'keyword' },
            amount: { type: 'double' },
            meta: { properties: { by: { type: 'keyword' } } },
          },
        },
        documents: Array.from({ length: DOCUMENTS }, (_, i) => ({
          _id: `s${i}`,
          _source: { region: i % 2 === 0 ? 'north' : 'south', amount: i, meta: { by: 'web' } },
        })),
      },
      huge: { mappings: {}, documents: [], reportedTotal: 5_000_000 },
    });
    allowed = context([`127.0.0.1:${es.port}`]);
  });

  afterAll(async () => {
    await es.close();
  });

  it('refuses a config without url, with credentials in the url, or with both api_key and username', () => {
    expect(() => normalizeConfig({ type: 'elasticsearch' }, {})).toThrow();
    expect(() => normalizeConfig({ type: 'elasticsearch' }, { url: 'http://u:p@127.0.0.1:9200' })).toThrow();
    expect(() =>
      normalizeConfig(
        { type: 'elasticsearch' },
        { url: 'http://127.0.0.1:9200', username: 'u', api_key: 'k' },
      ),
    ).toThrow();
  });

  it('tests with cluster health and reports the server version', async () => {
    const outcome = await elasticsearchDriver.test(config(), allowed);
    expect(outcome.message).toBe(
      'Connected to Elasticsearch 8.15.0, cluster "stand-in" (status green, 1 node(s)).',
    );
    expect(es.requests).toEqual(expect.arrayContaining(['GET /', 'GET /_cluster/health']));
  });

  it('authenticates with an API key', async () => {
    const outcome = await elasticsearchDriver.test(
      config({ username: undefined, api_key: 'key-1' }),
      allowed,
    );
    expect(outcome.details).toEqual(expect.objectContaining({ server_version: '8.15.0' }));
  });

  it('answers auth_failed for wrong credentials', async () => {
    const error = await connectorFailure(elasticsearchDriver.test(config({ password: 'wrong' }), allowed));
    expect(error.errorType).toBe('auth_failed');
    expect(error.recoverable).toBe(true);
    expect(error.message).not.toContain('wrong');
  });

  it('browses indices with document counts and flattened mappings, hiding system indices', async () => {
    const result = await elasticsearchDriver.browse(config(), allowed);
    expect(result.items.map((item) => item.name)).toEqual(['huge', 'sales']);
    expect(result.items[1]).toEqual({
      name: 'sales',
      kind: 'index',
      rows: DOCUMENTS,
      columns: [
        { name: 'region', type: 'keyword' },
        { name: 'amount', type: 'double' },
        { name: 'meta.by', type: 'keyword' },
      ],
    });
  });

  it('reads every document of an index in search_after pages as flat rows keyed by _id', async () => {
    const before = es.searchAfters.length;
    const rows = await readAll({ index: 'sales' });
    expect(rows).toHaveLength(DOCUMENTS);
    expect(rows[0]).toEqual({ _id: 's0', region: 'north', amount: 0, 'meta.by': 'web' });
    expect(rows[DOCUMENTS - 1]._id).toBe(`s${DOCUMENTS - 1}`);
    expect(es.searchAfters.slice(before)).toEqual([undefined, [PAGE_SIZE - 1], [PAGE_SIZE * 2 - 1]]);
    expect(es.requests[es.requests.length - 1]).toBe('DELETE /_pit');
  });

  it('stops after the preview limit', async () => {
    expect(await readAll({ index: 'sales', limit: 3 })).toHaveLength(3);
  });

  it('answers not_found for an index that does not exist', async () => {
    const error = await connectorFailure(readAll({ index: 'missing' }));
    expect(error.errorType).toBe('not_found');
    expect(error.message).toContain('index_not_found_exception');
  });

  it('refuses an index larger than one read takes, before reading it', async () => {
    const error = await connectorFailure(readAll({ index: 'huge' }));
    expect(error.errorType).toBe('invalid_config');
    expect(error.message).toContain('5000000 documents');
  });

  it('refuses wildcards and index lists', async () => {
    const error = await connectorFailure(readAll({ index: 'sa*' }));
    expect(error.errorType).toBe('invalid_config');
  });

  it('answers unreachable when nothing listens, and egress_blocked without a rule', async () => {
    const closed = await startElasticsearchStandIn({});
    const port = closed.port;
    await closed.close();
    const down = await connectorFailure(
      elasticsearchDriver.test(config({ url: `http://127.0.0.1:${port}` }), context([`127.0.0.1:${port}`])),
    );
    expect(down.errorType).toBe('unreachable');
    expect(down.recoverable).toBe(true);

    const guard = context([]);
    const blocked = await connectorFailure(elasticsearchDriver.test(config(), guard));
    expect(blocked.errorType).toBe('egress_blocked');
    expect((guard.egress as TestEgressGuard).attempts).toEqual([
      expect.objectContaining({ host: '127.0.0.1', port: es.port, allowed: false }),
    ]);
  });
});
