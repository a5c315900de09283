import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';

let counter = 0;
async function signUp(t: TestApp): Promise<string> {
  counter += 1;
  const res = await t.request('POST', '/auth/signup', {
    body: {
      email: `data${counter}-${Date.now()}@example.test`,
      password: 'correct horse battery',
      name: `Data ${counter}`,
    },
  });
  expect(res.status).toBe(201);
  return res.body.api_key.raw_key as string;
}

async function connector(t: TestApp, token: string, connectorType: string, config: object): Promise<string> {
  const res = await t.request('POST', '/v1/connectors', {
    token,
    body: { name: `c${++counter}`, connector_type: connectorType, config },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const CSV = [
  'order_id,order_date,region,units,revenue,returned',
  ...Array.from({ length: 40 }, (_, i) => {
    const n = i + 1;
    return `${n},2024-03-${String(1 + (n % 15)).padStart(2, '0')},${['West', 'East', 'North', 'South'][n % 4]},${1 + (n % 5)},${n * 10}.5,${n % 10 === 0}`;
  }),
].join('\n');

describe('datasets and queries over HTTP', () => {
  let t: TestApp;
  let token: string;
  let other: string;
  let datasetId: string;
  let server: Server;
  let restUrl: string;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const page = Number(url.searchParams.get('page') ?? '1');
      const endless = url.pathname === '/endless';
      const items =
        endless || page <= 3
          ? [
              { id: page * 10 + 1, meta: { kind: 'a' } },
              { id: page * 10 + 2, meta: { kind: 'b' } },
            ]
          : [];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: { items } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    restUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: '127.0.0.1' });
    token = await signUp(t);
    other = await signUp(t);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('connects a file connector and answers ready with the schema summary', async () => {
    const id = await connector(t, token, 'file', { file_type: 'csv', content: CSV });
    const res = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'file', dataset_name: 'sales', connection_id: id, visibility: 'private' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ready',
      schema_summary: { rows: 40, columns: 6 },
      connection_id: id,
    });
    datasetId = res.body.dataset_id;
  });

  it('lists, describes and profiles the dataset', async () => {
    const list = await t.request('GET', '/v1/data', { token });
    expect(list.body.datasets.map((d: any) => d.id)).toEqual([datasetId]);
    const compact = await t.request('GET', '/v1/data?compact=true&search=sal', { token });
    expect(compact.body.datasets).toEqual([
      { id: datasetId, dataset_name: 'sales', version: 1, rows: 40, columns: 6 },
    ]);
    const summary = await t.request('GET', `/v1/data/${datasetId}/summary`, { token });
    expect(summary.body).toMatchObject({ rows: 40, columns: 6, dataset_name: 'sales' });
    expect(typeof summary.body.ingested_at).toBe('string');
    const schema = await t.request('GET', `/v1/data/${datasetId}/schema`, { token });
    expect(schema.body.columns.map((c: any) => `${c.name}:${c.type}:${c.role}`)).toEqual([
      'order_id:integer:id',
      'order_date:date:time',
      'region:string:dimension',
      'units:integer:measure',
      'revenue:number:measure',
      'returned:boolean:dimension',
    ]);
    expect(schema.body.columns[3]).toMatchObject({ null_count: 0, distinct_count: 5, min: 1, max: 5 });
    expect(schema.body.columns.map((c: any) => c.exact_numeric)).toEqual(Array(6).fill(null));
    expect(schema.body.query_hints.length).toBeGreaterThan(0);
  });

  it('answers select + limit in source order, deterministically', async () => {
    const body = { dataset_id: datasetId, select: ['order_id', 'region'], limit: 2 };
    const first = await t.request('POST', '/v1/query', { token, body });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      rows: [
        { order_id: 1, region: 'East' },
        { order_id: 2, region: 'North' },
      ],
      row_count: 2,
      truncated: true,
    });
    expect(first.body.plan.order_by).toEqual([{ column: '_row', direction: 'asc' }]);
    const second = await t.request('POST', '/v1/query', { token, body });
    expect(second.body.rows).toEqual(first.body.rows);
  });

  it('answers natural language with the plan and its interpretation', async () => {
    const res = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: datasetId, query: 'top 2 region by total revenue' },
    });
    expect(res.status).toBe(200);
    expect(res.body.columns.map((c: any) => c.name)).toEqual(['region', 'sum_revenue']);
    expect(res.body.rows).toEqual([
      { region: 'West', sum_revenue: 2205 },
      { region: 'South', sum_revenue: 2105 },
    ]);
    expect(res.body.plan.aggregates).toEqual([{ function: 'sum', column: 'revenue', as: 'sum_revenue' }]);
    expect(res.body.plan.interpretation.pattern).toBe('top_n');
  });

  it.each([
    [{ select: ['nope'] }, 'validation_failed'],
    [{ select: ['region; drop table data'] }, 'validation_failed'],
    [{ select: ['region'], limit: -1 }, 'validation_failed'],
    [{ select: ['region'], limit: 10001 }, 'validation_failed'],
    [{ where: [{ column: 'units', op: 'gt', value: 'many' }] }, 'validation_failed'],
    [{ query: "region is West'; drop table data; --" }, 'query_not_understood'],
    [{ query: 'top 3 flavour by revenue' }, 'query_not_understood'],
  ])('refuses %j with 422 %s', async (extra, code) => {
    const res = await t.request('POST', '/v1/query', { token, body: { dataset_id: datasetId, ...extra } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe(code);
  });

  it('runs batches and read-only SQL reports', async () => {
    const batch = await t.request('POST', '/v1/query/batch', {
      token,
      body: {
        queries: [
          { dataset_id: datasetId, query: 'count of rows' },
          { dataset_id: datasetId, select: ['x'] },
        ],
      },
    });
    expect(batch.body.results[0].rows).toEqual([{ count_rows: 40 }]);
    expect(batch.body.results[1].error.code).toBe('validation_failed');
    const sql = await t.request('POST', '/v1/query/sql', {
      token,
      body: { dataset_id: datasetId, sql: 'select count(*) as n from sales where returned = 1' },
    });
    expect(sql.body).toMatchObject({ rows: [{ n: 4 }], truncated: false });
    const write = await t.request('POST', '/v1/query/sql', {
      token,
      body: { dataset_id: datasetId, sql: 'delete from sales' },
    });
    expect(write.status).toBe(422);
    expect(write.body.error.code).toBe('read_only_violation');
  });

  it('defines formulas over HTTP and queries them', async () => {
    const put = await t.request('PUT', `/v1/data/${datasetId}/formulas`, {
      token,
      body: { formulas: [{ name: 'per_unit', expression: 'revenue / units' }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.formulas).toEqual([{ name: 'per_unit', expression: 'revenue / units', type: 'number' }]);
    const res = await t.request('POST', '/v1/query', {
      token,
      body: {
        dataset_id: datasetId,
        select: ['order_id', 'per_unit'],
        where: [{ column: 'per_unit', op: 'gt', value: 100 }],
        limit: 1,
      },
    });
    expect(res.body.rows).toEqual([{ order_id: 10, per_unit: 100.5 }]);
    const bad = await t.request('PUT', `/v1/data/${datasetId}/formulas`, {
      token,
      body: { formulas: [{ name: 'x', expression: 'region + 1' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_failed');
  });

  it('hides a dataset from another organization (404)', async () => {
    for (const [method, path, body] of [
      ['GET', `/v1/data/${datasetId}`, undefined],
      ['GET', `/v1/data/${datasetId}/schema`, undefined],
      ['POST', '/v1/query', { dataset_id: datasetId, select: ['region'] }],
      ['POST', '/v1/query/sql', { dataset_id: datasetId, sql: 'select 1' }],
      ['DELETE', `/v1/data/${datasetId}`, undefined],
    ] as const) {
      const res = await t.request(method, path, { token: other, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('dataset_not_found');
    }
    expect((await t.request('GET', '/v1/data', { token: other })).body.datasets).toEqual([]);
  });

  it('reads a paginated REST source through the egress guard, flattening records', async () => {
    const id = await connector(t, token, 'rest', {
      url: `${restUrl}/items`,
      data_path: 'data.items',
      pagination: { mode: 'page_number', max_pages: 10 },
    });
    const res = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'api', provider: 'rest', dataset_name: 'items', connection_id: id },
    });
    expect(res.body).toMatchObject({ status: 'ready', schema_summary: { rows: 6, columns: 2 } });
    const rows = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: res.body.dataset_id, select: ['id', 'meta.kind'], limit: 3 },
    });
    expect(rows.body.rows).toEqual([
      { id: 11, 'meta.kind': 'a' },
      { id: 12, 'meta.kind': 'b' },
      { id: 21, 'meta.kind': 'a' },
    ]);
  });

  it('fails (never truncates) a REST source that reaches max_pages', async () => {
    const id = await connector(t, token, 'rest', {
      url: `${restUrl}/endless`,
      data_path: 'data.items',
      pagination: { mode: 'page_number', max_pages: 3 },
    });
    const res = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'api', provider: 'rest', dataset_name: 'endless', connection_id: id },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.message).toMatch(/max_pages|pages/i);
    expect((await t.request('GET', '/v1/data?search=endless', { token })).body.datasets).toEqual([]);
  });

  it('reads a PostgreSQL table', async () => {
    const pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    const table = `ds_e2e_${process.pid}`;
    try {
      await pg.query(`drop table if exists ${table}`);
      await pg.query(
        `create table ${table} (id int primary key, name text, amount numeric(10,2), seen date, big bigint,
          exact numeric(38,10))`,
      );
      await pg.query(
        `insert into ${table} values (1, 'a', 1.50, '2024-01-02', 9007199254740993, 99999999999999.999999),
          (2, 'b', null, '2024-01-03', 7, 0.5)`,
      );
      const id = await connector(t, token, 'postgres', {
        host: '127.0.0.1',
        port: 5432,
        database: 'test',
        user: 'postgres',
      });
      const res = await t.request('POST', '/v1/data/connect', {
        token,
        body: { connection_type: 'database', dataset_name: 'pg_table', connection_id: id, table },
      });
      expect(res.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 6 } });
      const schema = await t.request('GET', `/v1/data/${res.body.dataset_id}/schema`, { token });
      expect(schema.body.columns.map((c: any) => [c.name, c.type, c.exact_numeric])).toEqual([
        ['id', 'integer', null],
        ['name', 'string', null],
        ['amount', 'number', null],
        ['seen', 'date', null],
        ['big', 'string', 'integer'],
        ['exact', 'string', 'decimal'],
      ]);
      const exact = await t.request('POST', '/v1/query', {
        token,
        body: { dataset_id: res.body.dataset_id, select: ['id', 'amount', 'big', 'exact'] },
      });
      expect(exact.body.rows).toEqual([
        { id: 1, amount: 1.5, big: '9007199254740993', exact: '99999999999999.9999990000' },
        { id: 2, amount: null, big: '7', exact: '0.5' },
      ]);
      const q = await t.request('POST', '/v1/query', {
        token,
        body: {
          dataset_id: res.body.dataset_id,
          select: ['id', 'name'],
          where: [{ column: 'amount', op: 'is_null' }],
        },
      });
      expect(q.body.rows).toEqual([{ id: 2, name: 'b' }]);
    } finally {
      await pg.query(`drop table if exists ${table}`);
      await pg.end();
    }
  });

  it('marks a JSON Lines column of numbers a double cannot hold and answers their exact digits', async () => {
    const lines = [
      '{"n": 1, "big": 9007199254740993, "exact": 99999999999999.999999, "plain": 2.5}',
      '{"n": 2, "big": -12, "exact": 1.25, "plain": 3}',
    ].join('\n');
    const id = await connector(t, token, 'file', { file_type: 'json', content: lines });
    const res = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'file', dataset_name: 'exact_jsonl', connection_id: id },
    });
    expect(res.body).toMatchObject({ status: 'ready' });
    const schema = await t.request('GET', `/v1/data/${res.body.dataset_id}/schema`, { token });
    expect(schema.body.columns.map((c: any) => [c.name, c.type, c.exact_numeric])).toEqual([
      ['n', 'integer', null],
      ['big', 'string', 'integer'],
      ['exact', 'string', 'decimal'],
      ['plain', 'number', null],
    ]);
    const q = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: res.body.dataset_id, select: ['big', 'exact', 'plain'] },
    });
    expect(q.body.rows).toEqual([
      { big: '9007199254740993', exact: '99999999999999.999999', plain: 2.5 },
      { big: '-12', exact: '1.25', plain: 3 },
    ]);
  });

  it('re-connecting makes a new version; deleting removes it', async () => {
    const importDir = t.config.importDir;
    mkdirSync(importDir, { recursive: true });
    writeFileSync(join(importDir, 'sales.csv'), CSV);
    const id = await connector(t, token, 'file', {
      file_type: 'csv',
      file_path: join(importDir, 'sales.csv'),
    });
    const res = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'file', dataset_name: 'sales', connection_id: id },
    });
    expect(res.body).toMatchObject({ status: 'ready', version: 2 });
    const versions = await t.request('GET', `/v1/data/${datasetId}/versions`, { token });
    expect(versions.body.datasets.map((d: any) => d.version)).toEqual([2, 1]);
    const del = await t.request('DELETE', `/v1/data/${res.body.dataset_id}`, { token });
    expect(del.status).toBe(204);
    expect((await t.request('GET', `/v1/data/${res.body.dataset_id}`, { token })).status).toBe(404);
  });

  it('needs a credential on every data and query route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/data'],
      ['POST', '/v1/data/connect'],
      ['GET', `/v1/data/${datasetId}/schema`],
      ['PUT', `/v1/data/${datasetId}/formulas`],
      ['DELETE', `/v1/data/${datasetId}`],
      ['POST', '/v1/query'],
      ['POST', '/v1/query/batch'],
      ['POST', '/v1/query/sql'],
    ]) {
      const res = await t.request(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('authentication_required');
    }
  });
});
