import { Principal } from '../../src/common/auth/principal';
import { parseWire } from '../../src/common/validation';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { FormulasService } from '../../src/modules/datasets/formulas.service';
import { QueryRequest } from '../../src/modules/query/query.dto';
import { QueryService } from '../../src/modules/query/query.service';
import { ingestRows } from '../factories/datasets';
import { makeTempDir, removeTestData, startTestApp, TestApp } from '../support/test-app';

const owner: Principal = {
  auth: 'api_key',
  orgId: 'org_a',
  orgName: 'A',
  isOperatorOrg: false,
  role: 'owner',
};

/** More rows than three of DuckDB's row groups, so four threads really split the scan. */
const ROWS = 400_000;

async function* measurements(): AsyncGenerator<Record<string, unknown>[]> {
  for (let start = 0; start < ROWS; start += 5000) {
    const batch: Record<string, unknown>[] = [];
    for (let i = start; i < start + 5000; i++) {
      batch.push({
        station: `s${i % 37}`,
        // Doubles with every digit used: their sums change with the order of the additions.
        reading: Math.sin(i) * 1000 + 1 / (i + 3),
        // A fixed-point amount: stored as a decimal.
        amount: ((i * 7919) % 100_000) / 100,
        count: i % 11,
        // Too large for a fixed-point sum of every row: added in row order instead.
        huge: Math.cos(i) * 1e33,
      });
    }
    yield batch;
  }
}

const QUERIES: Record<string, unknown>[] = [
  {
    group_by: ['station'],
    aggregates: [
      { function: 'sum', column: 'reading' },
      { function: 'avg', column: 'reading' },
      { function: 'sum', column: 'amount' },
      { function: 'avg', column: 'amount' },
      { function: 'sum', column: 'count' },
      { function: 'sum', column: 'scaled' },
      { function: 'count' },
    ],
    order_by: [{ column: 'sum_reading', direction: 'desc' }],
    limit: 50,
  },
  {
    aggregates: [
      { function: 'sum', column: 'reading' },
      { function: 'avg', column: 'reading' },
      { function: 'sum', column: 'amount' },
      { function: 'avg', column: 'scaled' },
      { function: 'sum', column: 'huge' },
      { function: 'avg', column: 'huge' },
      // A formula's values beyond the fixed-point form: DuckDB refuses the cast and the row-ordered sum answers.
      { function: 'sum', column: 'boosted' },
      { function: 'min', column: 'reading' },
      { function: 'max', column: 'amount' },
    ],
  },
  {
    select: ['station', 'reading', 'amount'],
    where: [{ column: 'reading', op: 'gt', value: 999.99 }],
    limit: 200,
    offset: 100,
  },
];

async function answers(t: TestApp, id: string): Promise<string> {
  const queries = t.app.get(QueryService);
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const result = await queries.query(owner, parseWire(QueryRequest, { dataset_id: id, ...query }));
    out.push(result.rows);
  }
  const read = await queries.numericColumns(
    owner.orgId,
    id,
    ['reading'],
    [{ column: 'count', op: 'eq', value: 3 }],
    1000,
  );
  out.push({ rows: read.rowsMatching, sampled: read.sampled, values: Array.from(read.values[0]) });
  return JSON.stringify(out);
}

describe('query answers do not depend on DuckDB threads or restarts', () => {
  const dataDir = makeTempDir();
  afterAll(() => removeTestData(dataDir));

  it('gives byte-identical rows and fit samples at 1 and 4 threads, floating-point sums included', async () => {
    let t = await startTestApp({ SERVICE_QUERY_THREADS: '1' }, dataDir);
    const record = await ingestRows(t.app.get(DatasetsService), owner.orgId, 'readings', measurements());
    await t.app.get(FormulasService).set(owner, record.id, [
      { name: 'scaled', expression: 'reading * 1.1 / (count + 1)' },
      { name: 'boosted', expression: 'huge * 1000' },
    ]);
    const schema = await t.app.get(DatasetsService).schema(owner, record.id);
    expect(schema.columns.map((c) => [c.name, c.type])).toEqual([
      ['station', 'string'],
      ['reading', 'number'],
      ['amount', 'number'],
      ['count', 'integer'],
      ['huge', 'number'],
    ]);
    const oneThread = await answers(t, record.id);
    await t.close(true);

    t = await startTestApp({ SERVICE_QUERY_THREADS: '4' }, dataDir);
    try {
      const fourThreads = await answers(t, record.id);
      expect(fourThreads).toBe(oneThread);
      const parsed = JSON.parse(oneThread) as Record<string, unknown>[][];
      expect(parsed[0]).toHaveLength(37);
      expect(parsed[1][0].sum_amount).toBeCloseTo(
        Array.from({ length: ROWS }, (_, i) => ((i * 7919) % 100_000) / 100).reduce((a, b) => a + b, 0),
        2,
      );
      // In row order without a sort (query-compiler): matches 100 to 299, across row groups.
      const high = Array.from({ length: ROWS }, (_, i) => i).filter(
        (i) => Math.sin(i) * 1000 + 1 / (i + 3) > 999.99,
      );
      expect(high[299]).toBeGreaterThan(122_880);
      expect(parsed[2]).toEqual(
        high.slice(100, 300).map((i) => ({
          station: `s${i % 37}`,
          reading: Math.sin(i) * 1000 + 1 / (i + 3),
          amount: ((i * 7919) % 100_000) / 100,
        })),
      );
      const matching = Array.from({ length: ROWS }, (_, i) => i).filter((i) => i % 11 === 3);
      expect(parsed[3]).toEqual({
        rows: matching.length,
        sampled: true,
        values: matching
          .filter((_, r) => (r * 1000) % matching.length < 1000)
          .map((i) => Math.sin(i) * 1000 + 1 / (i + 3)),
      });
    } finally {
      await t.close(true);
    }
  });
});
