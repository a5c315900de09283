import { rejection } from '../support/rejection';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { DataFitService } from '../../src/modules/query/data-fit.service';
import { QueryService } from '../../src/modules/query/query.service';
import { startTestApp, TestApp } from '../support/test-app';
import { ingestRows } from '../factories/datasets';

const ORG = 'org_fit';
const OTHER_ORG = 'org_other';
const ROWS = 600;

/** Deterministic rows: units depends on i, price falls as units rise (a negative rank correlation), some nulls. */
function row(i: number): Record<string, unknown> {
  const units = 50 + ((i * 7919) % 101) + (i % 3) * 0.5;
  return {
    region: i % 3 === 0 ? 'west' : 'east',
    units: i % 50 === 0 ? null : units,
    price: 20 - units / 10 + ((i * 31) % 7) / 10,
    margin: 100 - units,
    label: `item ${i}`,
    few: i < 8 ? i : null,
    flat: 5,
  };
}

async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
  yield Array.from({ length: ROWS }, (_, i) => row(i));
}

describe('fits from dataset columns (services over real files)', () => {
  let t: TestApp;
  let fits: DataFitService;
  let queries: QueryService;
  let id: string;

  beforeAll(async () => {
    t = await startTestApp();
    fits = t.app.get(DataFitService);
    queries = t.app.get(QueryService);
    id = (await ingestRows(t.app.get(DatasetsService), ORG, 'orders', rows())).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const units = (filter: (i: number) => boolean = () => true): number[] =>
    Array.from({ length: ROWS }, (_, i) => i)
      .filter((i) => filter(i) && row(i).units !== null)
      .map((i) => row(i).units as number);

  it('fits the non-null values under where; the normal fit is the mean and population sd', async () => {
    const west = units((i) => i % 3 === 0);
    const answer = await fits.fit(ORG, id, {
      column: 'units',
      where: [{ column: 'region', op: 'eq', value: 'west' }],
    });
    expect(answer).toMatchObject({
      dataset_id: id,
      dataset_name: 'orders',
      version: 1,
      column: 'units',
      where: [{ column: 'region', op: 'eq', value: 'west' }],
      n: west.length,
      rows_matching: west.length,
      sampled: false,
    });
    const mean = west.reduce((s, x) => s + x, 0) / west.length;
    const sd = Math.sqrt(west.reduce((s, x) => s + (x - mean) ** 2, 0) / west.length);
    const normal = answer.candidates.find((c) => c.family === 'normal');
    expect(normal?.params.mean).toBeCloseTo(mean, 10);
    expect(normal?.params.sd).toBeCloseTo(sd, 10);
    expect(answer.candidates).toHaveLength(8);
    expect(answer.best).toEqual(answer.candidates[0]);
    for (let i = 1; i < answer.candidates.length; i++) {
      expect(answer.candidates[i].aic).toBeGreaterThanOrEqual(answer.candidates[i - 1].aic);
    }
    const uniform = await fits.fit(ORG, id, { column: 'units', families: ['uniform'] });
    expect(uniform.candidates).toEqual([
      expect.objectContaining({
        family: 'uniform',
        params: { min: Math.min(...units()), max: Math.max(...units()) },
      }),
    ]);
  });

  it('refuses what cannot be fitted with the codes of the catalogue', async () => {
    expect((await rejection(fits.fit(OTHER_ORG, id, { column: 'units' }))).code).toBe('dataset_not_found');
    expect((await rejection(fits.fit(ORG, 'ds_000000000000000000000000', { column: 'units' }))).code).toBe(
      'dataset_not_found',
    );
    expect((await rejection(fits.fit(ORG, id, { column: 'label' }))).code).toBe('column_not_numeric');
    const few = await rejection(fits.fit(ORG, id, { column: 'few' }));
    expect([few.code, few.message]).toEqual([
      'insufficient_data',
      'The column has 8 non-null values under the conditions; at least 10 are needed.',
    ]);
    expect((await rejection(fits.fit(ORG, id, { column: 'flat' }))).code).toBe('insufficient_data');
    const missing = await rejection(fits.fit(ORG, id, { column: 'nope' }));
    expect([missing.code, missing.details?.[0].field]).toEqual(['validation_failed', 'column']);
    const badWhere = await rejection(
      fits.fit(ORG, id, { column: 'units', where: [{ column: 'region', op: 'gt' }] }),
    );
    expect(badWhere.code).toBe('validation_failed');
    const negative = await rejection(fits.resolve(ORG, { dataset_id: id, column: 'margin' }, 'lognormal'));
    expect([negative.code, negative.details]).toEqual([
      'validation_failed',
      [
        {
          field: 'distribution',
          problem: 'lognormal needs every value > 0; the column cannot be fitted by it',
        },
      ],
    ]);
  });

  it('samples evenly in row order above the maximum, the same rows every time', async () => {
    const all = units();
    const read = await queries.numericColumns(ORG, id, ['units'], undefined, 100);
    const expected = all.filter((_, r) => (r * 100) % all.length < 100);
    expect(read.sampled).toBe(true);
    expect(read.rowsMatching).toBe(all.length);
    expect(Array.from(read.values[0])).toEqual(expected);
    const again = await queries.numericColumns(ORG, id, ['units'], undefined, 100);
    expect(Array.from(again.values[0])).toEqual(expected);
  });

  it("estimates Spearman's rank correlation from the rows holding both columns", async () => {
    const pairs = Array.from({ length: ROWS }, (_, i) => row(i)).filter((r) => r.units !== null);
    const rank = (xs: number[]): number[] =>
      xs.map((x) => xs.filter((y) => y < x).length + (xs.filter((y) => y === x).length + 1) / 2);
    const a = rank(pairs.map((r) => r.units as number));
    const b = rank(pairs.map((r) => r.price as number));
    const mean = (a.length + 1) / 2;
    let cross = 0;
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < a.length; i++) {
      cross += (a[i] - mean) * (b[i] - mean);
      sa += (a[i] - mean) ** 2;
      sb += (b[i] - mean) ** 2;
    }
    const rho = await fits.rankCorrelation(ORG, { dataset_id: id }, 'units', 'price');
    expect(rho).toBeCloseTo(cross / Math.sqrt(sa * sb), 12);
    expect(rho).toBeLessThan(-0.8);
  });

  it('resolves a column to an empirical sample or its best fit, with provenance', async () => {
    const empirical = await fits.resolve(ORG, { dataset_id: id, column: 'units' }, 'empirical');
    expect(empirical.distribution).toBe('empirical');
    if (empirical.distribution !== 'empirical') return;
    expect(Array.from(empirical.values)).toEqual(units());
    expect(empirical.source).toEqual({
      dataset_id: id,
      dataset_name: 'orders',
      version: 1,
      column: 'units',
      where: [],
      rows_used: units().length,
      rows_matching: units().length,
      sampled: false,
    });
    const best = await fits.resolve(ORG, { dataset_id: id, column: 'units' }, 'fit');
    const answer = await fits.fit(ORG, id, { column: 'units' });
    expect(best).toMatchObject({
      distribution: answer.best.family,
      params: answer.best.params,
      fit: { aic: answer.best.aic, ks_statistic: answer.best.ks_statistic },
    });
  });
});
