import { existsSync, rmSync } from 'node:fs';
import { Principal } from '../../src/common/auth/principal';
import { presentValue } from '../../src/modules/datasets/column-profile';
import { DatasetSummaries } from '../../src/modules/datasets/dataset-summaries';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { compileQuery } from '../../src/modules/query/query-compiler';
import { toQuerySpec } from '../../src/modules/query/query.dto';
import { QueryResult, QueryService } from '../../src/modules/query/query.service';
import { quoteIdentifier } from '../../src/modules/datasets/sql-identifiers';
import { startTestApp, TestApp } from '../support/test-app';
import { ingestRows } from '../factories/datasets';

const owner: Principal = {
  auth: 'api_key',
  orgId: 'org_s',
  orgName: 'S',
  isOperatorOrg: false,
  role: 'owner',
};

const SEGMENTS = ['Retail', 'Online', 'Wholesale', 'Partner', 'Staff', 'Outlet'];

/**
 * 6000 rows whose float sums depend on the order they are added in (thirds, tenths and large magnitudes), with
 * NULL dimensions and measures, and ties: `Staff` and `Outlet` get identical rows, so every aggregate of theirs ties.
 */
async function* mixedRows(): AsyncGenerator<Record<string, unknown>[]> {
  let batch: Record<string, unknown>[] = [];
  for (let i = 0; i < 6000; i++) {
    const twin = i % 12 >= 10;
    const segment =
      (twin ? Math.floor(i / 2) : i) % 97 === 0 ? null : twin ? SEGMENTS[4 + (i % 2)] : SEGMENTS[i % 4];
    const k = twin ? Math.floor(i / 2) : i;
    batch.push({
      segment,
      channel: ['web', 'store', 'phone'][i % 3],
      day: i % 31 === 0 ? null : `2024-03-${String(1 + (i % 20)).padStart(2, '0')}`,
      returned: i % 9 === 0,
      price: k % 13 === 0 ? null : (k % 29) / 3 + (k % 7 === 0 ? 1e15 : 0.1),
      units: k % 5,
      discount: k % 11 === 0 ? null : -((k * 7) % 17) / 10,
    });
    if (batch.length === 500) {
      yield batch;
      batch = [];
    }
  }
  yield batch;
}

async function summariesReady(datasets: DatasetsService, id: string): Promise<string[]> {
  for (;;) {
    const schema = await datasets.schema(owner, id);
    const ready = schema.summaries;
    if (ready.length > 0) return ready;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('dataset summaries answer unfiltered group-bys exactly as the dataset does', () => {
  let t: TestApp;
  let datasets: DatasetsService;
  let queries: QueryService;
  let id: string;

  beforeAll(async () => {
    t = await startTestApp();
    datasets = t.app.get(DatasetsService);
    queries = t.app.get(QueryService);
    const record = await ingestRows(datasets, owner.orgId, 'mixed', mixedRows());
    id = record.id;
    expect((await summariesReady(datasets, id)).sort()).toEqual(['channel', 'day', 'returned', 'segment']);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** The direct query, compiled and run on the dataset file itself. */
  async function direct(input: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const dataset = await datasets.open(owner.orgId, id);
    const spec = toQuerySpec(input, dataset.columns);
    const compiled = compileQuery(spec, quoteIdentifier);
    const rows = await (await dataset.reader()).all(compiled.sql, compiled.params);
    const booleans = dataset.columns.filter((c) => c.type === 'boolean').map((c) => c.name);
    return rows.slice(0, spec.limit).map((row) => {
      for (const name of booleans) {
        if (name in row) row[name] = presentValue(row[name] as number | null, 'boolean');
      }
      return row;
    });
  }

  async function run(input: Record<string, unknown>): Promise<QueryResult> {
    return queries.query(owner, { dataset_id: id, ...input });
  }

  it('matches every function of every measure, in both orders, to the bit', async () => {
    const aggregates = [{ function: 'count' }];
    for (const column of ['price', 'units', 'discount']) {
      for (const fn of ['sum', 'avg', 'count', 'min', 'max'])
        aggregates.push({ function: fn, column } as never);
    }
    for (const dimension of ['segment', 'channel', 'day', 'returned']) {
      for (const term of ['count_rows', 'sum_price', 'avg_price', 'min_discount', 'max_units', dimension]) {
        for (const direction of ['asc', 'desc']) {
          const input = {
            group_by: [dimension],
            aggregates,
            order_by: [{ column: term, direction }],
            limit: 5,
          };
          const result = await run(input);
          expect(result.plan.answered_from).toBe('summary');
          expect(result.rows).toEqual(await direct(input));
        }
      }
    }
  });

  it('breaks ties by the group key like the direct query, and keeps the NULL group', async () => {
    const input = { group_by: ['segment'], aggregates: [{ function: 'sum', column: 'price' }] };
    const result = await run({ ...input, order_by: [{ column: 'sum_price', direction: 'desc' }] });
    const segments = result.rows.map((r) => r.segment);
    expect(segments).toContain(null);
    const staff = result.rows.find((r) => r.segment === 'Staff');
    const outlet = result.rows.find((r) => r.segment === 'Outlet');
    expect(staff?.sum_price).toBe(outlet?.sum_price);
    expect(segments.indexOf('Outlet') + 1).toBe(segments.indexOf('Staff'));
    expect(result.rows).toEqual(
      await direct({ ...input, order_by: [{ column: 'sum_price', direction: 'desc' }] }),
    );
  });

  it('answers natural language from the summary with the direct answer', async () => {
    for (const query of [
      'top 3 segment by total price',
      'top 4 segment by average discount',
      'top 2 channel by count',
      'top 5 day by average units',
    ]) {
      const result = await run({ query });
      expect(result.plan.answered_from).toBe('summary');
      const spec = {
        group_by: result.plan.group_by,
        aggregates: result.plan.aggregates.map((a) =>
          a.column === null ? { function: a.function } : { function: a.function, column: a.column },
        ),
        order_by: result.plan.order_by.filter((t) => !result.plan.group_by.includes(t.column)),
        limit: result.plan.limit,
      };
      expect(result.rows).toEqual(await direct(spec as Record<string, unknown>));
      expect(result.rows.length).toBeGreaterThan(1);
    }
  });

  it('runs filtered queries, filtered natural language and non-summarised aggregates on the dataset', async () => {
    const filtered = await run({
      where: [{ column: 'channel', op: 'eq', value: 'web' }],
      group_by: ['segment'],
      aggregates: [{ function: 'sum', column: 'price' }],
    });
    expect(filtered.plan.answered_from).toBe('dataset');
    expect(filtered.rows.length).toBeGreaterThan(3);
    const nl = await run({ query: 'top 3 segment by total price where channel is web' });
    expect(nl.plan.answered_from).toBe('dataset');
    expect(nl.plan.where).toEqual([{ column: 'channel', op: 'eq', value: 'web' }]);
    const twoKeys = await run({ group_by: ['segment', 'channel'], aggregates: [{ function: 'count' }] });
    expect(twoKeys.plan.answered_from).toBe('dataset');
    const overall = await run({ aggregates: [{ function: 'sum', column: 'price' }] });
    expect(overall.plan.answered_from).toBe('dataset');
  });

  it('finds the summaries again after a restart, and rebuilds them when their file is gone', async () => {
    const dataset = await datasets.open(owner.orgId, id);
    const file = DatasetSummaries.fileFor(dataset.filePath);
    expect(existsSync(file)).toBe(true);
    const input = { group_by: ['segment'], aggregates: [{ function: 'avg', column: 'price' }] };
    const before = await run(input);

    await t.close(true);
    t = await startTestApp({}, t.dataDir);
    datasets = t.app.get(DatasetsService);
    queries = t.app.get(QueryService);
    const again = await run(input);
    expect(again.plan.answered_from).toBe('summary');
    expect(again.rows).toEqual(before.rows);

    await t.close(true);
    rmSync(file);
    t = await startTestApp({}, t.dataDir);
    datasets = t.app.get(DatasetsService);
    queries = t.app.get(QueryService);
    const meanwhile = await run(input);
    expect(meanwhile.plan.answered_from).toBe('dataset');
    expect(meanwhile.rows).toEqual(before.rows);
    await summariesReady(datasets, id);
    const rebuilt = await run(input);
    expect(rebuilt.plan.answered_from).toBe('summary');
    expect(rebuilt.rows).toEqual(before.rows);
  });

  it('removes the summaries with their dataset version', async () => {
    const dataset = await datasets.open(owner.orgId, id);
    await datasets.delete(owner, id);
    expect(existsSync(DatasetSummaries.fileFor(dataset.filePath))).toBe(false);
  });
});
