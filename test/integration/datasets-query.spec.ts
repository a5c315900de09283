import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { rejection } from '../support/rejection';
import { Principal } from '../../src/common/auth/principal';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { FormulasService } from '../../src/modules/datasets/formulas.service';
import { QueryService } from '../../src/modules/query/query.service';
import { QueryRequest } from '../../src/modules/query/query.dto';
import { parseWire } from '../../src/common/validation';
import { startTestApp, TestApp } from '../support/test-app';
import { ingestRows } from '../factories/datasets';

const orgA: Principal = {
  auth: 'api_key',
  orgId: 'org_a',
  orgName: 'A',
  isOperatorOrg: false,
  role: 'owner',
};
const orgB: Principal = {
  auth: 'api_key',
  orgId: 'org_b',
  orgName: 'B',
  isOperatorOrg: false,
  role: 'owner',
};

const REGIONS = ['West', 'East', 'North', 'South'];

/** 1000 deterministic sales rows in batches of 128, as a connector would stream them. */
async function* salesRows(count = 1000): AsyncGenerator<Record<string, unknown>[]> {
  let batch: Record<string, unknown>[] = [];
  for (let i = 1; i <= count; i++) {
    batch.push({
      order_id: String(i),
      order_date: `2024-0${1 + (i % 3)}-${String(1 + (i % 28)).padStart(2, '0')}`,
      region: REGIONS[i % 4],
      units: String(1 + (i % 7)),
      revenue: ((i * 37) % 1000) / 4,
      returned: i % 10 === 0,
    });
    if (batch.length === 128) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

describe('datasets and queries (services over real files)', () => {
  let t: TestApp;
  let datasets: DatasetsService;
  let queries: QueryService;
  let id: string;

  beforeAll(async () => {
    t = await startTestApp();
    datasets = t.app.get(DatasetsService);
    queries = t.app.get(QueryService);
    const record = await ingestRows(datasets, orgA.orgId, 'sales', salesRows(), {
      connectionId: 'con_test',
      source: { connector_type: 'file' },
    });
    id = record.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('catalogues the snapshot with its profile and hints', async () => {
    const schema = (await datasets.schema(orgA, id)) as any;
    expect(schema.rows).toBe(1000);
    expect(schema.columns.map((c: any) => [c.name, c.type, c.role])).toEqual([
      ['order_id', 'integer', 'id'],
      ['order_date', 'date', 'time'],
      ['region', 'string', 'dimension'],
      ['units', 'integer', 'measure'],
      ['revenue', 'number', 'measure'],
      ['returned', 'boolean', 'dimension'],
    ]);
    expect(schema.columns[2]).toMatchObject({ null_count: 0, distinct_count: 4, min: 'East', max: 'West' });
    expect(schema.query_hints).toContain('top 10 region by total units');
    const summary = (await datasets.summary(orgA, id)) as any;
    expect(summary).toMatchObject({
      rows: 1000,
      columns: 6,
      measures: ['units', 'revenue'],
      time_columns: ['order_date'],
    });
    expect(existsSync(join(t.config.datasetsDir, `${id}.duckdb`))).toBe(true);
  });

  it('answers select + limit in source order with a total-order plan', async () => {
    const result = await queries.query(orgA, {
      dataset_id: id,
      select: ['order_id', 'region', 'returned'],
      limit: 3,
    });
    expect(result.rows).toEqual([
      { order_id: 1, region: 'East', returned: false },
      { order_id: 2, region: 'North', returned: false },
      { order_id: 3, region: 'South', returned: false },
    ]);
    expect(result).toMatchObject({ row_count: 3, truncated: true });
    expect(result.columns).toEqual([
      { name: 'order_id', type: 'integer' },
      { name: 'region', type: 'string' },
      { name: 'returned', type: 'boolean' },
    ]);
    expect(result.plan.order_by).toEqual([{ column: '_row', direction: 'asc' }]);
  });

  it('compares, sorts and answers a text column stored as ENUM codes as the text itself', async () => {
    const count = async (where: unknown[]): Promise<unknown> =>
      (
        await queries.query(
          orgA,
          parseWire(QueryRequest, { dataset_id: id, where, aggregates: [{ function: 'count' }] }),
        )
      ).rows[0].count_rows;
    expect(await count([{ column: 'region', op: 'eq', value: 'Atlantis' }])).toBe(0);
    expect(await count([{ column: 'region', op: 'in', value: ['West', 'Atlantis', 'east'] }])).toBe(250);
    expect(await count([{ column: 'region', op: 'ne', value: 'Atlantis' }])).toBe(1000);
    expect(await count([{ column: 'region', op: 'lt', value: 'North' }])).toBe(250);
    const grouped = await queries.query(
      orgA,
      parseWire(QueryRequest, {
        dataset_id: id,
        group_by: ['region'],
        aggregates: [{ function: 'max', column: 'region' }, { function: 'count' }],
      }),
    );
    expect(grouped.rows).toEqual(
      ['East', 'North', 'South', 'West'].map((region) => ({ region, max_region: region, count_rows: 250 })),
    );

    const report = await queries.sqlReport(orgA, {
      dataset_id: id,
      sql: "select typeof(region) as type, region || '!' as shout from dataset where region < 'F' limit 1",
    });
    expect(report.rows).toEqual([{ type: 'VARCHAR', shout: 'East!' }]);
  });

  it('filters, orders with a row-ordinal tiebreak, and pages', async () => {
    const query = parseWire(QueryRequest, {
      dataset_id: id,
      select: ['order_id', 'units'],
      where: [
        { column: 'region', op: 'eq', value: 'West' },
        { column: 'units', op: 'gte', value: 6 },
      ],
      order_by: [{ column: 'units', direction: 'desc' }],
      limit: 4,
      offset: 2,
    });
    const first = await queries.query(orgA, query);
    const again = await queries.query(orgA, query);
    expect(again.rows).toEqual(first.rows);
    expect(first.rows).toEqual([
      { order_id: 76, units: 7 },
      { order_id: 104, units: 7 },
      { order_id: 132, units: 7 },
      { order_id: 160, units: 7 },
    ]);
  });

  it('groups and aggregates with <function>_<column> names', async () => {
    const result = await queries.query(orgA, {
      dataset_id: id,
      group_by: ['region'],
      aggregates: [
        { function: 'sum', column: 'units' },
        { function: 'count' },
        { function: 'avg', column: 'revenue' },
      ],
      order_by: [{ column: 'sum_units', direction: 'desc' }],
    });
    expect(result.columns.map((c) => `${c.name}:${c.type}`)).toEqual([
      'region:string',
      'sum_units:integer',
      'count_rows:integer',
      'avg_revenue:number',
    ]);
    expect(result.rows.map((r) => r.count_rows)).toEqual([250, 250, 250, 250]);
    expect(result.rows.reduce((s, r) => s + (r.sum_units as number), 0)).toBe(4003);
    expect(result.plan.order_by).toEqual([
      { column: 'sum_units', direction: 'desc' },
      { column: 'region', direction: 'asc' },
    ]);
  });

  it('resolves natural language with an interpretation, matching values regardless of case', async () => {
    const result = await queries.query(orgA, { dataset_id: id, query: 'count of rows where region is west' });
    expect(result.rows).toEqual([{ count_rows: 250 }]);
    expect(result.plan.where).toEqual([{ column: 'region', op: 'eq', value: 'West' }]);
    expect((result.plan.interpretation as any).pattern).toBe('count');
    const top = await queries.query(orgA, { dataset_id: id, query: 'top 2 region by total units' });
    expect(top.rows.map((r) => r.region)).toHaveLength(2);
    expect(top.columns.map((c) => c.name)).toEqual(['region', 'sum_units']);
  });

  it('refuses what it does not understand with 422 query_not_understood and hints', async () => {
    const error = await rejection(
      queries.query(orgA, { dataset_id: id, query: 'top 5 region by total units; drop table data' }),
    );
    expect(error.code).toBe('query_not_understood');
    expect(error.status).toBe(422);
    expect(error.details?.length).toBeGreaterThan(0);
  });

  it('validates the typed grammar with details', async () => {
    const error = await rejection(
      queries.query(orgA, { dataset_id: id, select: ['region"; drop table data; --'], limit: -1 }),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((d) => d.field)).toEqual(['select[0]', 'limit']);
  });

  it("hides other organizations' datasets", async () => {
    expect((await rejection(queries.query(orgB, { dataset_id: id, select: ['region'] }))).code).toBe(
      'dataset_not_found',
    );
    expect((await rejection(datasets.schema(orgB, id))).code).toBe('dataset_not_found');
    expect(await datasets.list(orgB)).toEqual([]);
  });

  it('runs batches in order with errors in place', async () => {
    const { results } = await queries.batch(orgA, {
      queries: [
        { dataset_id: id, select: ['order_id'], limit: 1 },
        { dataset_id: id, select: ['nope'] },
        { dataset_id: 'ds_missing', select: ['x'] },
      ],
    });
    expect((results[0] as any).rows).toEqual([{ order_id: 1 }]);
    expect((results[1] as any).error.code).toBe('validation_failed');
    expect((results[2] as any).error.code).toBe('dataset_not_found');
  });

  it('runs one read-only SQL statement over the dataset by name', async () => {
    const report = await queries.sqlReport(orgA, {
      dataset_id: id,
      sql: 'select region, count(*) as n from sales group by region order by region',
    });
    expect(report.columns).toEqual(['region', 'n']);
    expect(report.rows).toEqual([
      { region: 'East', n: 250 },
      { region: 'North', n: 250 },
      { region: 'South', n: 250 },
      { region: 'West', n: 250 },
    ]);
    const alias = await queries.sqlReport(orgA, { dataset_id: id, sql: 'select count(*) as n from dataset' });
    expect(alias.rows).toEqual([{ n: 1000 }]);
  });

  it.each([
    ['delete from sales'],
    ['update sales set units = 0'],
    ['drop table data'],
    ["attach database '/tmp/x.sqlite' as x"],
    ['pragma query_only = 0'],
    ['select file from pragma_database_list'],
    ['select * from "PRAGMA_DATABASE_LIST"'],
    ['select 1; select 2'],
    ['create table t (a)'],
    ['insert into sales (units) values (1)'],
  ])('refuses %s with read_only_violation', async (sql) => {
    const error = await rejection(queries.sqlReport(orgA, { dataset_id: id, sql }));
    expect(error.code).toBe('read_only_violation');
  });

  it('caps SQL report rows and says so', async () => {
    const report = await queries.sqlReport(orgA, {
      dataset_id: id,
      sql: 'with recursive n(x) as (select 1 union all select x + 1 from n where x < 20000) select x from n',
    });
    expect(report.row_count).toBe(10000);
    expect(report.truncated).toBe(true);
  });

  it('defines formula columns that queries select, filter and aggregate inside DuckDB', async () => {
    const formulas = t.app.get(FormulasService);
    const schema = (await formulas.set(orgA, id, [
      { name: 'unit_revenue', expression: 'revenue / units' },
      { name: 'big', expression: 'if(units >= 6, 1, 0) * revenue > 100' },
    ])) as any;
    expect(schema.formulas).toEqual([
      { name: 'unit_revenue', expression: 'revenue / units', type: 'number' },
      { name: 'big', expression: 'if(units >= 6, 1, 0) * revenue > 100', type: 'boolean' },
    ]);
    const rows = await queries.query(orgA, {
      dataset_id: id,
      select: ['order_id', 'units', 'revenue', 'unit_revenue', 'big'],
      where: [{ column: 'unit_revenue', op: 'gt', value: 100 }],
      limit: 2,
    });
    for (const row of rows.rows) {
      expect(row.unit_revenue).toBeCloseTo((row.revenue as number) / (row.units as number), 10);
      expect(row.big).toBe((row.units as number) >= 6 && (row.revenue as number) > 100);
    }
    const grouped = await queries.query(orgA, {
      dataset_id: id,
      group_by: ['big'],
      aggregates: [{ function: 'avg', column: 'unit_revenue' }, { function: 'count' }],
    });
    expect(grouped.rows.map((r) => r.big)).toEqual([false, true]);
    const nl = await queries.query(orgA, {
      dataset_id: id,
      query: 'count of rows where unit_revenue over 100',
    });
    expect(nl.rows[0].count_rows).toBeGreaterThan(0);
    const report = await queries.sqlReport(orgA, {
      dataset_id: id,
      sql: 'select count(*) as n from sales where unit_revenue > 100',
    });
    expect(report.rows).toEqual([{ n: nl.rows[0].count_rows }]);
  });

  it('refuses formulas that do not parse, name unknown or text columns, or collide', async () => {
    const error = await rejection(
      t.app.get(FormulasService).set(orgA, id, [
        { name: 'a', expression: 'revenue +' },
        { name: 'b', expression: 'region * 2' },
        { name: 'units', expression: '1' },
      ]),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((d) => d.field)).toEqual([
      'formulas[0].expression',
      'formulas[1].expression',
      'formulas[2].name',
    ]);
  });

  it('makes a new version on re-connect and deletes one version', async () => {
    const second = await ingestRows(datasets, orgA.orgId, 'sales', salesRows(10), {
      connectionId: 'con_test',
    });
    expect(second.version).toBe(2);
    const latest = await datasets.list(orgA);
    expect(latest.map((d) => [d.dataset_name, d.version])).toEqual([['sales', 2]]);
    expect((await datasets.list(orgA, { allVersions: true })).map((d) => d.version)).toEqual([2, 1]);
    await datasets.delete(orgA, second.id);
    expect(existsSync(join(t.config.datasetsDir, `${second.id}.duckdb`))).toBe(false);
    expect((await rejection(datasets.get(orgA, second.id))).code).toBe('dataset_not_found');
  });
});

describe('SQL report budget', () => {
  it('interrupts a statement that runs past SERVICE_SQL_REPORT_TIMEOUT_S with 504 query_timeout', async () => {
    // Long enough for the report after it to start a fresh worker on a loaded machine; the recursion never ends.
    const t = await startTestApp({ SERVICE_SQL_REPORT_TIMEOUT_S: '3' });
    try {
      const record = await ingestRows(t.app.get(DatasetsService), orgA.orgId, 'tiny', salesRows(5));
      const endless =
        'with recursive n(x) as (select 1 union all select x + 1 from n) select count(*) from n';
      const error = await rejection(
        t.app.get(QueryService).sqlReport(orgA, { dataset_id: record.id, sql: endless }),
      );
      expect(error.code).toBe('query_timeout');
      expect(error.status).toBe(504);
      const after = await t.app
        .get(QueryService)
        .sqlReport(orgA, { dataset_id: record.id, sql: 'select count(*) as n from tiny' });
      expect(after.rows).toEqual([{ n: 5 }]);
    } finally {
      await t.close();
    }
  });
});
