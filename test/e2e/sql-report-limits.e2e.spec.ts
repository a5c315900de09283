import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const RUNAWAY = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c';
const CSV = [
  'id,region,units',
  ...Array.from({ length: 20 }, (_, i) => `${i + 1},${i % 2 ? 'West' : 'East'},${i}`),
].join('\n');

/** Pids of this process's report processes (they carry their own process title). */
function reportProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.startsWith('decisiond-sql-report')) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** Whether a thread of the process is running or runnable (an idle report process sleeps on its IPC channel). */
function isRunning(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((task) =>
      readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1].startsWith('R'),
    );
  } catch {
    return false;
  }
}

/**
 * Through ingest and HTTP: these pass once dataset versions are written as DuckDB files (the duckdb-store branch);
 * test/integration/sql-report-duckdb.spec.ts covers the report processes on DuckDB files built directly.
 */
describe('SQL reports run apart from the daemon, within limits', () => {
  let t: TestApp;
  let owner: string;
  let datasetId: string;

  async function viewerKey(label: string): Promise<string> {
    const res = await t.request('POST', '/v1/api-keys', { token: owner, body: { label, role: 'viewer' } });
    expect(res.status).toBe(201);
    return res.body.raw_key as string;
  }

  function report(token: string, sql: string) {
    return t.request('POST', '/v1/query/sql', { token, body: { dataset_id: datasetId, sql } });
  }

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_SQL_REPORT_TIMEOUT_S: '30' });
    const signup = await t.request('POST', '/auth/signup', {
      body: {
        email: `sql-limits-${Date.now()}@example.test`,
        password: 'correct horse battery',
        name: 'Reports',
      },
    });
    expect(signup.status).toBe(201);
    owner = signup.body.api_key.raw_key as string;
    const connector = await t.request('POST', '/v1/connectors', {
      token: owner,
      body: { name: 'csv', connector_type: 'file', config: { file_type: 'csv', content: CSV } },
    });
    expect(connector.status).toBe(201);
    const connect = await t.request('POST', '/v1/data/connect', {
      token: owner,
      body: {
        connection_type: 'file',
        dataset_name: 'sales',
        connection_id: connector.body.id,
        visibility: 'private',
      },
    });
    expect(connect.status).toBe(200);
    datasetId = connect.body.dataset_id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a report in a report process, the same rows every time', async () => {
    const sql = 'select region, sum(units) as units from sales group by region order by region';
    const first = await report(owner, sql);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      columns: ['region', 'units'],
      rows: [
        { region: 'East', units: 90 },
        { region: 'West', units: 100 },
      ],
      row_count: 2,
      truncated: false,
    });
    const again = await report(owner, sql);
    expect(again.body.rows).toEqual(first.body.rows);
    expect(reportProcesses().length).toBeGreaterThan(0);
  });

  it('keeps health and authenticated reads answering while four runaway reports run, then stops them', async () => {
    const [a, b, c] = [await viewerKey('a'), await viewerKey('b'), await viewerKey('c')];
    const settled: boolean[] = [false, false, false, false];
    const runaways = [a, a, b, b].map((token, i) =>
      report(token, RUNAWAY).finally(() => {
        settled[i] = true;
      }),
    );
    // Idle report processes are reused, others started: four of them then hold a runaway each.
    const busy = await waitUntil(
      () => {
        const pids = reportProcesses().filter(isRunning);
        return pids.length === 4 ? pids : undefined;
      },
      20_000,
      'four busy report processes',
    );

    const third = await report(a, 'select 1 as one');
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(third.body.error.message).toContain('At most 2 SQL reports');
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    const fifth = await report(c, 'select 1 as one');
    expect(fifth.status).toBe(429);
    expect(fifth.body.error.message).toContain('At most 4 SQL reports may run at once per organization');
    expect(fifth.headers.get('retry-after')).not.toBeNull();

    // How fast health answers meanwhile is measured by bench/sql-report-isolation, not asserted here.
    for (let i = 0; i < 9; i++) expect((await t.request('GET', '/v1/health')).status).toBe(200);
    const read = await t.request('GET', `/v1/data/${datasetId}`, { token: a });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(datasetId);
    const typed = await t.request('POST', '/v1/query', {
      token: a,
      body: { dataset_id: datasetId, select: ['id'], where: [{ column: 'id', op: 'lte', value: 2 }] },
    });
    expect(typed.body.rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect(settled).toEqual([false, false, false, false]);

    const results = await Promise.all(runaways);
    for (const res of results) {
      expect(res.status).toBe(504);
      expect(res.body.error.code).toBe('query_timeout');
    }
    // Killed and reaped: no CPU is spent on them any more.
    for (const pid of busy) expect(existsSync(`/proc/${pid}`)).toBe(false);

    const after = await report(a, 'select 1 as one');
    expect(after.status).toBe(200);
    expect(after.body.rows).toEqual([{ one: 1 }]);
  }, 90_000);

  it('refuses results over the byte cap with 422 result_too_large naming the limit', async () => {
    const cap = 16 * 1024 * 1024;
    const bigRows = await report(owner, "select i, repeat('x', 1000000) as big from range(450) t(i)");
    expect(bigRows.status).toBe(422);
    expect(bigRows.body.error.code).toBe('result_too_large');
    expect(bigRows.body.error.message).toContain(`${cap} bytes`);
    expect(bigRows.body.error.details).toEqual([
      { field: 'sql', problem: `the result exceeds ${cap} bytes (SERVICE_SQL_REPORT_MAX_BYTES)` },
    ]);

    const oneHugeValue = await report(owner, "select replace(repeat('x', 10000000), 'x', 'yy') as huge");
    expect(oneHugeValue.status).toBe(422);
    expect(oneHugeValue.body.error.code).toBe('result_too_large');

    const underTheCap = await report(
      owner,
      "select i, repeat('x', 4000) as s from range(1, 2001) t(i) order by i",
    );
    expect(underTheCap.status).toBe(200);
    expect(underTheCap.body.row_count).toBe(2000);
    expect(underTheCap.body.rows[1999]).toEqual({ i: 2000, s: 'x'.repeat(4000) });
  }, 60_000);

  it.each([
    ["select * from sniff_csv('/etc/passwd')", 'sniff_csv'],
    ['select path from duckdb_databases()', 'duckdb_databases'],
    ["select * from read_csv('/etc/passwd')", 'read_csv'],
    ["copy sales to '/tmp/sales.csv'", 'COPY'],
  ])('refuses %s with the error body of a 422 read_only_violation', async (sql, named) => {
    const res = await report(owner, sql);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('read_only_violation');
    expect(res.body.error.message).toContain(named);
    expect(res.body.error.message).not.toContain('/datasets/');
  });
});
