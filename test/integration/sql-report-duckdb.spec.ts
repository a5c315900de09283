import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { AppError } from '../../src/common/errors';
import { ReportProcesses } from '../../src/modules/query/report-processes';
import { ReportLimits, ReportTable, runSqlReport } from '../../src/modules/query/sql-report';

/**
 * SQL reports on DuckDB dataset files, built here in the layout docs/datasets.md fixes (table `rows` with `_row` and
 * the schema's columns, `_ds_meta`), through real report processes started from the built entry file (`npm run
 * build` first). The HTTP path through ingest is in test/e2e/sql-report-limits.e2e.spec.ts.
 */

const LIMITS: ReportLimits = { timeoutMs: 20_000, maxRows: 1000, maxBytes: 1024 * 1024 };

async function writeDataset(file: string, rows: number): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  await connection.run(
    'create table rows (_row BIGINT, region VARCHAR, units BIGINT, revenue DECIMAL(18,2), returned BOOLEAN)',
  );
  await connection.run(
    `insert into rows select i, case i % 2 when 0 then 'East' else 'West' end, i % 7, (i * 37 % 1000) / 4, i % 10 = 0
     from range(1, ${rows + 1}) t(i)`,
  );
  await connection.run('create table _ds_meta (key VARCHAR, value VARCHAR)');
  await connection.run("insert into _ds_meta values ('layout', '1')");
  connection.closeSync();
  instance.closeSync();
}

describe('SQL reports on DuckDB files, locked down', () => {
  let dir: string;
  let processes: ReportProcesses;
  let sales: ReportTable;
  let returns: ReportTable;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sql-report-duckdb-'));
    await writeDataset(join(dir, 'ds_sales.duckdb'), 1000);
    await writeDataset(join(dir, 'ds_returns.duckdb'), 10);
    sales = {
      datasetId: 'ds_sales',
      filePath: join(dir, 'ds_sales.duckdb'),
      names: ['sales', 'dataset'],
      columns: [],
      formulas: [],
    };
    returns = {
      datasetId: 'ds_returns',
      filePath: join(dir, 'ds_returns.duckdb'),
      names: ['returns'],
      columns: [],
      formulas: [],
    };
    processes = new ReportProcesses(192, { memoryMb: 64, threads: 1, spillDir: join(dir, 'spill') });
  });
  afterAll(async () => {
    await processes.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const report = (sql: string, limits: Partial<ReportLimits> = {}) =>
    runSqlReport(sql, [sales, returns], { ...LIMITS, ...limits }, processes);

  async function refusal(sql: string): Promise<AppError> {
    const error = await report(sql).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it('answers a group-by in DuckDB SQL, integers and decimals as JSON numbers', async () => {
    const result = await report(
      'select region, count(*) as n, sum(revenue) as revenue, max(_row) as last from sales group by region order by region',
    );
    expect(result.columns).toEqual(['region', 'n', 'revenue', 'last']);
    expect(result.rows).toEqual([
      { region: 'East', n: 500, revenue: 62375, last: 1000 },
      { region: 'West', n: 500, revenue: 62500, last: 999 },
    ]);
    expect(result.truncated).toBe(false);
  });

  it('shows each dataset under its names, the first also as `dataset`, and joins them', async () => {
    const result = await report(
      'select count(*) as n from dataset d join returns r on r._row = d._row where r.returned',
    );
    expect(result.rows).toEqual([{ n: 1 }]);
  });

  it('stops at the row cap with truncated: true', async () => {
    const result = await report('select _row from sales order by _row', { maxRows: 3 });
    expect(result.rows).toEqual([{ _row: 1 }, { _row: 2 }, { _row: 3 }]);
    expect(result.truncated).toBe(true);
  });

  it('refuses a result over the byte cap with 422 result_too_large', async () => {
    const error = await refusal("select _row, repeat('x', 4000) as s from sales");
    expect(error.status).toBe(422);
    expect(error.code).toBe('result_too_large');
  });

  it.each([
    ['more than one statement', 'select 1; select 2', 'more than one statement'],
    ['DDL', 'create table x (a int)', 'CREATE'],
    ['DML', 'delete from sales', 'DELETE'],
    ['DML in a CTE statement', 'with x as (select 1) insert into sales select * from sales', 'SELECT'],
    ['PRAGMA', 'pragma database_list', 'PRAGMA'],
    ['ATTACH', "attach '/etc/passwd' as p", 'ATTACH'],
    ['DETACH', 'detach ds0', 'DETACH'],
    ['COPY', "copy sales to '/tmp/out.csv'", 'COPY'],
    ['INSTALL', 'install httpfs', 'INSTALL'],
    ['LOAD', 'load httpfs', 'LOAD'],
    ['SET', 'set threads = 4', 'SET'],
    ['RESET', 'reset memory_limit', 'RESET'],
    ['read_csv', "select * from read_csv('/etc/passwd')", 'read_csv'],
    ['read_parquet', "select * from read_parquet('/tmp/x.parquet')", 'read_parquet'],
    ['read_text', "select * from read_text('/etc/passwd')", 'read_text'],
    ['read_json', "select * from read_json('/etc/passwd')", 'read_json'],
    ['glob', "select * from glob('/etc/*')", 'glob'],
    ['sniff_csv (CVE-2024-41672)', "select * from sniff_csv('/etc/passwd')", 'sniff_csv'],
    ['a file named as a table', "select * from '/etc/passwd'", '/etc/passwd'],
    ['pragma_database_list', 'select * from pragma_database_list', 'pragma_database_list'],
    ['duckdb_databases()', 'select path from duckdb_databases()', 'duckdb_databases'],
    ['duckdb_settings()', 'select value from duckdb_settings()', 'duckdb_settings'],
    ['current_setting', "select current_setting('temp_directory') as t", 'current_setting'],
    ['SQL run from a string', "select * from query('select 1')", 'query'],
    ['a qualified table', 'select * from ds0.main.rows', 'qualified'],
    ['a qualified function', 'select main.upper(region) from sales', 'qualified'],
    ['the metadata tables', 'select * from _ds_meta', '_ds_meta'],
    ['a table function in a subquery', "select (select count(*) from glob('/*')) as n", 'glob'],
    ['DESCRIBE', 'describe sales', 'DESCRIBE'],
  ])('refuses %s with 422 read_only_violation', async (_what, sql, named) => {
    const error = await refusal(sql);
    expect(error.status).toBe(422);
    expect(error.code).toBe('read_only_violation');
    expect(error.message).toContain(named);
    expect(error.message).not.toContain(dir);
  });

  it('refuses a 100-level nested expression with 422 validation_failed', async () => {
    let expression = '_row';
    for (let i = 0; i < 100; i++) expression = `abs(${expression})`;
    const error = await refusal(`select ${expression} from sales`);
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.details).toEqual([{ field: 'sql', problem: 'nests expressions more than 64 levels deep' }]);
  });

  it('names an unknown column with 422 validation_failed and DuckDB message', async () => {
    const error = await refusal('select flavour from sales');
    expect(error.code).toBe('validation_failed');
    expect(error.details?.[0].problem).toContain('flavour');
    expect(error.message).not.toContain(dir);
  });

  it('answers 422 query_too_expensive when a query cannot fit its memory limit', async () => {
    const error = await refusal('select list(md5(_row::varchar || x::varchar)) from sales, range(3000) t(x)');
    expect(error.status).toBe(422);
    expect(error.code).toBe('query_too_expensive');
  });

  it('stops a runaway report at its budget with 504 query_timeout, then answers the next', async () => {
    const error = await report(
      'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c',
      { timeoutMs: 1500 },
    ).then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
    expect(error?.code).toBe('query_timeout');
    expect(error?.status).toBe(504);
    const next = await report('select 1 as one');
    expect(next.rows).toEqual([{ one: 1 }]);
  });
});
