import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src/common/errors';
import { Principal } from '../../src/common/auth/principal';
import { parseWire } from '../../src/common/validation';
import { DatasetReaders } from '../../src/modules/datasets/dataset-readers';
import { DatasetFileWriter } from '../../src/modules/datasets/dataset-file-writer';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { FormulasService } from '../../src/modules/datasets/formulas.service';
import { QueryRequest } from '../../src/modules/query/query.dto';
import { QueryService } from '../../src/modules/query/query.service';
import { ingestRows } from '../factories/datasets';
import { TEST_BUILD } from '../support/dataset-files';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

const owner: Principal = {
  auth: 'api_key',
  orgId: 'org_a',
  orgName: 'A',
  isOperatorOrg: false,
  role: 'owner',
};

async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
  yield Array.from({ length: 50 }, (_, i) => ({
    id: String(i + 1),
    region: i % 2 ? 'West' : 'East',
    amount: i / 4,
  }));
}

async function failure(work: () => Promise<unknown>): Promise<AppError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('bad input against DuckDB datasets: a clear 4xx, nothing written', () => {
  let t: TestApp;
  let id: string;
  const query = (body: Record<string, unknown>) => () =>
    t.app.get(QueryService).query(owner, parseWire(QueryRequest, { dataset_id: id, ...body }));

  beforeAll(async () => {
    t = await startTestApp();
    id = (await ingestRows(t.app.get(DatasetsService), owner.orgId, 'sales', rows())).id;
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown column', { select: ['nope'] }],
    ['an unknown column in where', { where: [{ column: 'nope', op: 'eq', value: 1 }] }],
    ['text for a number column', { where: [{ column: 'amount', op: 'gt', value: 'lots' }] }],
    ['a number for a text operator', { where: [{ column: 'region', op: 'contains', value: 5 }] }],
    [
      'an in list over the limit',
      { where: [{ column: 'id', op: 'in', value: Array.from({ length: 1001 }, (_, i) => i) }] },
    ],
    ['an aggregate of a text column', { aggregates: [{ function: 'sum', column: 'region' }] }],
  ])('%s is 422 validation_failed', async (_name, body) => {
    const error = await failure(query(body));
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
  });

  it('a formula nested 100 levels deep runs in DuckDB; one past the parser limit is 422 and writes nothing', async () => {
    const formulas = t.app.get(FormulasService);
    const hundred = `${'('.repeat(100)}amount${' + 1)'.repeat(100)}`;
    await formulas.set(owner, id, [{ name: 'deep', expression: hundred }]);
    const result = await query({ aggregates: [{ function: 'max', column: 'deep' }] })();
    expect(result.rows).toEqual([{ max_deep: 49 / 4 + 100 }]);

    const tooDeep = `${'('.repeat(300)}amount${')'.repeat(300)}`;
    const error = await failure(() => formulas.set(owner, id, [{ name: 'deeper', expression: tooDeep }]));
    expect([error.status, error.code]).toEqual([422, 'validation_failed']);
    expect(error.details?.[0]?.problem).toMatch(/nested too deeply/);
    expect((await t.app.get(DatasetsService).schema(owner, id)).formulas.map((f) => f.name)).toEqual([
      'deep',
    ]);
  });

  it('a query over the memory budget answers 422 query_too_expensive and the next query still runs', async () => {
    const dir = makeTempDir('ds-budget-');
    const file = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(file, TEST_BUILD);
    await writer.addBatch([{ n: 1 }]);
    await writer.finish();
    const readers = new DatasetReaders({ memoryMb: 64, threads: 1, tempDir: join(dir, 'tmp') }, 30_000);
    try {
      const reader = await readers.get('ds_budget', file, []);
      const error = await failure(() => reader.all('select len(list(i)) as n from range(30000000) t(i)'));
      expect([error.status, error.code]).toEqual([422, 'query_too_expensive']);
      expect(await reader.all('select count(*) as c from rows')).toEqual([{ c: 1 }]);
    } finally {
      await readers.closeAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
