import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Principal } from '../../src/common/auth/principal';
import { parseWire } from '../../src/common/validation';
import { DatasetRepository } from '../../src/modules/datasets/dataset.repository';
import { DatasetsService } from '../../src/modules/datasets/datasets.service';
import { FormulasService } from '../../src/modules/datasets/formulas.service';
import { QueryRequest } from '../../src/modules/query/query.dto';
import { QueryService } from '../../src/modules/query/query.service';
import { ingestRows } from '../factories/datasets';
import { readDatasetFile } from '../support/dataset-files';
import { writePreviousFormat } from '../support/sqlite-dataset-files';
import { makeTempDir, removeTestData, startTestApp, TestApp } from '../support/test-app';

const owner: Principal = {
  auth: 'api_key',
  orgId: 'org_a',
  orgName: 'A',
  isOperatorOrg: false,
  role: 'owner',
};

async function* mixedRows(): AsyncGenerator<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let i = 1; i <= 3000; i++) {
    rows.push({
      id: String(i),
      region: i % 13 === 0 ? null : ['West', 'East', 'Nörth 😀'][i % 3],
      price: (i % 500) / 4,
      reading: Math.cos(i) * 10,
      big: i % 2 === 0 ? '9007199254740993' : String(i),
      day: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`,
      at: `2026-11-02T10:00:00.${String(i % 1000).padStart(3, '0')}Z`,
      ok: i % 4 === 0,
    });
  }
  for (let at = 0; at < rows.length; at += 700) yield rows.slice(at, at + 700);
}

const QUERIES: Record<string, unknown>[] = [
  { select: ['id', 'region', 'price', 'reading', 'big', 'day', 'at', 'ok', 'margin'], limit: 10_000 },
  {
    group_by: ['region', 'ok'],
    aggregates: [
      { function: 'sum', column: 'price' },
      { function: 'avg', column: 'reading' },
      { function: 'max', column: 'big' },
      { function: 'count' },
    ],
  },
  { query: 'total price by region' },
];

async function answers(t: TestApp, id: string): Promise<string> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const result = await t.app
      .get(QueryService)
      .query(owner, parseWire(QueryRequest, { dataset_id: id, ...query }));
    out.push(result.rows);
  }
  return JSON.stringify(out);
}

/** Turns a version's DuckDB file back into the previous writer's SQLite file, as a wave-2 data dir holds it. */
async function downgrade(t: TestApp, id: string): Promise<void> {
  const file = join(t.config.datasetsDir, `${id}.duckdb`);
  const rows = await readDatasetFile(file, 'select * from rows order by _row');
  const columns = Object.keys(rows[0]).filter((name) => name !== '_row');
  const old = join(t.config.datasetsDir, `${id}.sqlite`);
  await writePreviousFormat(old, columns, rows);
  chmodSync(old, 0o400);
  await t.app.get(DatasetRepository).replaceFileName(id, `${id}.duckdb`, `${id}.sqlite`);
  rmSync(file);
}

describe('upgrade: dataset versions in the previous SQLite format', () => {
  const dataDir = makeTempDir();
  afterAll(() => removeTestData(dataDir));

  it('are converted once at start with nothing lost; a version that fails stays in its old file, readable', async () => {
    let t = await startTestApp({}, dataDir);
    const datasets = t.app.get(DatasetsService);
    const first = await ingestRows(datasets, owner.orgId, 'mixed', mixedRows());
    const second = await ingestRows(datasets, owner.orgId, 'broken', mixedRows());
    const third = await ingestRows(datasets, owner.orgId, 'kept', mixedRows());
    for (const { id } of [first, third]) {
      await t.app
        .get(FormulasService)
        .set(owner, id, [{ name: 'margin', expression: 'price * 0.2 - reading' }]);
    }
    const before = await answers(t, first.id);
    expect(await answers(t, third.id)).toBe(before);
    await downgrade(t, first.id);
    await downgrade(t, second.id);
    await downgrade(t, third.id);
    // A version whose converted file cannot be put in place (a directory holds its name): kept in SQLite, readable.
    mkdirSync(join(t.config.datasetsDir, `${third.id}.duckdb`, 'occupied'), { recursive: true });
    // A version whose old file is damaged: its conversion fails and the file is kept as it was.
    const broken = join(t.config.datasetsDir, `${second.id}.sqlite`);
    rmSync(broken);
    writeFileSync(broken, 'not a database');
    await t.close(true);

    t = await startTestApp({}, dataDir);
    try {
      expect(existsSync(join(t.config.datasetsDir, `${first.id}.sqlite`))).toBe(false);
      expect(existsSync(join(t.config.datasetsDir, `${first.id}.duckdb`))).toBe(true);
      expect((await t.app.get(DatasetRepository).findVisible(owner.orgId, first.id, false))?.fileName).toBe(
        `${first.id}.duckdb`,
      );
      expect(await answers(t, first.id)).toBe(before);

      expect(existsSync(broken)).toBe(true);
      expect(existsSync(join(t.config.datasetsDir, `${second.id}.duckdb`))).toBe(false);
      expect(existsSync(join(t.config.datasetsDir, `${second.id}.duckdb.partial`))).toBe(false);
      expect((await t.app.get(DatasetRepository).findVisible(owner.orgId, second.id, false))?.fileName).toBe(
        `${second.id}.sqlite`,
      );

      expect(existsSync(join(t.config.datasetsDir, `${third.id}.sqlite`))).toBe(true);
      expect(existsSync(join(t.config.datasetsDir, `${third.id}.duckdb.partial`))).toBe(false);
      expect(await answers(t, third.id)).toBe(before);
      // A SQL report cannot attach the old file: a clear 409, not a failure of the daemon.
      await expect(
        t.app
          .get(QueryService)
          .sqlReport(owner, { dataset_id: third.id, sql: 'select count(*) from dataset' }),
      ).rejects.toMatchObject({
        code: 'dataset_not_converted',
        status: 409,
        message: expect.stringContaining('Restart the daemon to retry the conversion'),
      });
    } finally {
      await t.close(true);
    }
  });
});
