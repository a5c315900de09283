/**
 * Dataset ingest and query benchmark, over HTTP against the built daemon (dist/main.js) as a real process:
 *
 * 1. generates a deterministic ROWS-row, 8-column CSV (default 1,000,000) in a fresh import directory;
 * 2. imports it with the sqlite3 command-line shell (`.import` into a fresh database) — the yardstick;
 * 3. signs up, creates a file connector on the same file (`file_path`) and times `POST /v1/data/connect`, then
 *    reads the daemon's peak resident memory (VmHWM) from /proc;
 * 4. times N `POST /v1/query` select + limit 100 and N/4 natural-language `top 10 <dim> by total <measure>`,
 *    one after another over one keep-alive connection: the same query repeated after a warm-up (answered from the
 *    result cache), then N (select) and N/4 (NL) distinct queries — other filters, offsets, dimensions, measures
 *    and counts — each executed on the dataset version's DuckDB file (uncached).
 *
 * Steps 2–4 repeat ROUNDS times (default 5), each round with fresh databases; the report gives each figure's
 * median and spread (min–max) over the rounds and the load average.
 *
 *   bash bench/data/run.sh                 # ROWS=1000000 N=400 ROUNDS=5; writes its section of docs/BENCHMARKS.md
 *   ROWS=200000 N=100 ROUNDS=3 bash bench/data/run.sh
 *   BENCH_DAEMON_NODE_ARGS=--max-semi-space-size=16 bash bench/data/run.sh   # after config.nodeFlags: V8 takes the last
 *
 * The daemon is started by bench/support/daemon.ts, its log going to a file as under systemd (drained through a
 * pipe by this process, the log cost the daemon CPU time of its own), with the Node flags of package.json's
 * `config.nodeFlags`, as `npm start` and `/usr/bin/decisiond` start it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startDaemon, writeSection } from '../support/daemon';
import { spread } from '../support/stats';
import { generateCsv, REGIONS } from './generate-csv';

const ROWS = Number(process.env.ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.N ?? 400);
const WARMUP = 30;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** A round counts as taken on a quiet machine when the load average stays at most this. */
const QUIET_LOAD = cpus().length;

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU seconds (user + system, every thread) the process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;

/** The shell's import, timed, with its CPU seconds from bash's `times` (children's user and system time). */
function shellImport(database: string, csv: string): { seconds: number; cpu: number } {
  const started = process.hrtime.bigint();
  const shell = spawnSync('bash', [
    '-c',
    'sqlite3 "$1" ".mode csv" ".import $2 data" && times',
    '_',
    database,
    csv,
  ]);
  const elapsed = seconds(started);
  if (shell.status !== 0) throw new Error(`sqlite3 .import failed: ${shell.stderr.toString()}`);
  const children = shell.stdout.toString().trim().split('\n').pop() ?? '';
  const cpu = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, m) => sum + Number(m[1]) * 60 + Number(m[2]),
    0,
  );
  return { seconds: elapsed, cpu };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Latency {
  readonly first: number;
  readonly p50: number;
  readonly p95: number;
}

/** N distinct calls, none seen before (each executed, never answered from the cache); first is the first of them. */
async function timeDistinct(n: number, run: (i: number) => Promise<unknown>): Promise<Latency> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    await run(i);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const first = times[0];
  times.sort((a, b) => a - b);
  return { first, p50: percentile(times, 50), p95: percentile(times, 95) };
}

const DIMENSIONS = ['product', 'region', 'order_date', 'is_returned'];
const MEASURES = ['revenue', 'units', 'unit_price'];
const AGGREGATES = ['total', 'average'];

/** The i-th distinct select: a region filter (or none) and an offset, never the same pair twice. */
function distinctSelect(datasetId: string, i: number): Record<string, unknown> {
  const region = i % (REGIONS.length + 1);
  return {
    dataset_id: datasetId,
    select: ['order_id', 'order_date', 'region', 'revenue'],
    ...(region < REGIONS.length ? { where: [{ column: 'region', op: 'eq', value: REGIONS[region] }] } : {}),
    limit: 100,
    offset: 100 * Math.floor(i / (REGIONS.length + 1)),
  };
}

/** The i-th distinct NL query: `top K <dim> by <total|average> <measure>`, K from 3, never the same text twice. */
function distinctNl(i: number): string {
  const combos = DIMENSIONS.length * MEASURES.length * AGGREGATES.length;
  const combo = i % combos;
  const dimension = DIMENSIONS[combo % DIMENSIONS.length];
  const measure = MEASURES[Math.floor(combo / DIMENSIONS.length) % MEASURES.length];
  const aggregate = AGGREGATES[Math.floor(combo / (DIMENSIONS.length * MEASURES.length))];
  return `top ${3 + Math.floor(i / combos)} ${dimension} by ${aggregate} ${measure}`;
}

/** The first call (cold: nothing cached), then N calls after a warm-up. */
async function timeRequests(n: number, run: () => Promise<unknown>): Promise<Latency> {
  const firstStarted = process.hrtime.bigint();
  await run();
  const first = Number(process.hrtime.bigint() - firstStarted) / 1e6;
  for (let i = 0; i < WARMUP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { first, p50: percentile(times, 50), p95: percentile(times, 95) };
}

function seconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** One round: the shell's import and the daemon's connect of the same file, then the queries; fresh databases. */
async function measureRound(work: string, importDir: string, csv: string, round: number): Promise<Figures> {
  const shellDb = join(work, `shell-${round}.sqlite`);
  const shell = shellImport(shellDb, csv);
  rmSync(shellDb, { force: true });
  const daemon = await startDaemon({
    NODE_ENV: 'test',
    SERVICE_IMPORT_DIR: importDir,
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_RUNTIME_SUPERVISE: 'false',
    ENGINE_POOL_SIZE: '0',
  });
  try {
    const email = `bench-${Date.now()}@example.test`;
    const signup = await call(daemon.url, 'POST', '/auth/signup', undefined, {
      email,
      password: 'benchmark password',
      name: 'Bench',
    });
    const token = signup.api_key.raw_key as string;
    const connector = await call(daemon.url, 'POST', '/v1/connectors', token, {
      name: 'orders',
      connector_type: 'file',
      config: { file_type: 'csv', file_path: csv },
    });
    const baselineMb = peakRssMb(daemon.pid);
    const cpuBefore = cpuSeconds(daemon.pid);
    const ingestStarted = process.hrtime.bigint();
    const connected = await call(daemon.url, 'POST', '/v1/data/connect', token, {
      connection_type: 'file',
      dataset_name: 'orders',
      connection_id: connector.id,
      visibility: 'private',
    });
    const ingestSeconds = seconds(ingestStarted);
    const ingestCpu = cpuSeconds(daemon.pid) - cpuBefore;
    const peakMb = peakRssMb(daemon.pid);
    if (connected.status !== 'ready' || connected.schema_summary.rows !== ROWS) {
      throw new Error(`ingest failed: ${JSON.stringify(connected)}`);
    }
    const datasetId = connected.dataset_id as string;

    const select = await timeRequests(REQUESTS, () =>
      call(daemon.url, 'POST', '/v1/query', token, {
        dataset_id: datasetId,
        select: ['order_id', 'order_date', 'region', 'revenue'],
        limit: 100,
      }),
    );
    const nl = await timeRequests(Math.max(10, Math.floor(REQUESTS / 4)), () =>
      call(daemon.url, 'POST', '/v1/query', token, {
        dataset_id: datasetId,
        query: 'top 10 product by total revenue',
      }),
    );
    const selectUncached = await timeDistinct(REQUESTS, (i) =>
      call(daemon.url, 'POST', '/v1/query', token, distinctSelect(datasetId, i)),
    );
    const nlUncached = await timeDistinct(Math.max(10, Math.floor(REQUESTS / 4)), async (i) => {
      await call(daemon.url, 'POST', '/v1/query', token, {
        dataset_id: datasetId,
        query: distinctNl(i),
      });
    });
    return {
      shellSeconds: shell.seconds,
      shellCpu: shell.cpu,
      ingestSeconds,
      ingestCpu,
      baselineMb,
      peakMb,
      select,
      nl,
      selectUncached,
      nlUncached,
      load: loadavg()[0],
    };
  } finally {
    await daemon.stop();
  }
}

async function main(): Promise<void> {
  if (spawnSync('sqlite3', ['-version']).status !== 0) {
    throw new Error('the sqlite3 command-line shell is missing: apt-get install -y sqlite3');
  }
  const loadBefore = loadavg()[0];
  const work = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const importDir = join(work, 'imports');
  mkdirSync(importDir, { recursive: true });
  const csv = join(importDir, 'orders.csv');
  try {
    await generateCsv(csv, ROWS);
    const csvMb = statSync(csv).size / 1e6;
    const rounds: Figures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push(await measureRound(work, importDir, csv, round));
      const last = rounds[round];
      console.error(
        `round ${round + 1}/${ROUNDS}: connect ${(last.ingestSeconds / last.shellSeconds).toFixed(2)}× the shell, ` +
          `uncached select p50 ${last.selectUncached.p50.toFixed(2)} ms`,
      );
    }
    report(csvMb, loadBefore, rounds);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface Figures {
  readonly shellSeconds: number;
  readonly shellCpu: number;
  readonly ingestSeconds: number;
  readonly ingestCpu: number;
  readonly baselineMb: number;
  readonly peakMb: number;
  readonly select: Latency;
  readonly nl: Latency;
  readonly selectUncached: Latency;
  readonly nlUncached: Latency;
  /** 1-minute load average at the end of the round. */
  readonly load: number;
}

function report(csvMb: number, loadBefore: number, rounds: readonly Figures[]): void {
  const loads = [loadBefore, ...rounds.map((r) => r.load)];
  const quiet = Math.max(...loads) <= QUIET_LOAD;
  const ratios = rounds.map((r) => r.ingestSeconds / r.shellSeconds);
  const nlCount = Math.max(10, Math.floor(REQUESTS / 4));
  const of = (pick: (r: Figures) => number, digits: number, unit = ''): string =>
    spread(rounds.map(pick), digits, unit);
  const lines = [
    '## Datasets: ingest and queries (`bash bench/data/run.sh`)',
    '',
    `${ROWS.toLocaleString('en-US')} rows × 8 columns of CSV (${csvMb.toFixed(1)} MB), ${cpus().length} cores, ` +
      `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}; ${rounds.length} rounds, ` +
      `each with a fresh database for the shell and a fresh daemon; load average ${loadBefore.toFixed(1)} before, ` +
      `${loads[loads.length - 1].toFixed(1)} at the end${quiet ? '' : ` (reached ${Math.max(...loads).toFixed(1)}: **under load, not a goal figure**)`}. ` +
      'Ingest is `POST /v1/data/connect` of a file connector on the same file (`file_path` in the import directory): ' +
      'CSV parsing, type inference, profiling and the DuckDB file, over HTTP against the built daemon.',
    '',
    '| Measure | median (min–max) over the rounds | per round | Target |',
    '|---|---|---|---|',
    `| sqlite3 shell \`.import\` (fresh database) | ${of((r) => r.shellSeconds, 2, ' s')} | ${rounds.map((r) => r.shellSeconds.toFixed(2)).join(', ')} | yardstick |`,
    `| \`POST /v1/data/connect\` | ${of((r) => r.ingestSeconds, 2, ' s')} | ${rounds.map((r) => r.ingestSeconds.toFixed(2)).join(', ')} | |`,
    `| connect / shell, round by round | **${spread(ratios, 2, '×')}** | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ≤ 1.5× (median) |`,
    `| CPU time, every thread: shell / daemon during the connect | ${of((r) => r.shellCpu, 2, ' s')} / ${of((r) => r.ingestCpu, 2, ' s')} | | (context) |`,
    `| daemon peak RSS (VmHWM) during ingest | ${of((r) => r.peakMb, 0, ' MB')} (${of((r) => r.baselineMb, 0, ' MB')} before) | ${rounds.map((r) => r.peakMb.toFixed(0)).join(', ')} | < 300 MB |`,
    `| \`select\` 4 columns + \`limit 100\`, uncached, p50 of ${REQUESTS} distinct | **${of((r) => r.selectUncached.p50, 2, ' ms')}** | ${rounds.map((r) => r.selectUncached.p50.toFixed(2)).join(', ')} | p50 < 5 ms (every round) |`,
    `| same, first / p95 | ${of((r) => r.selectUncached.first, 2, ' ms')} / ${of((r) => r.selectUncached.p95, 2, ' ms')} | | (context) |`,
    `| \`select\` 4 columns + \`limit 100\`, one query repeated: p50 | ${of((r) => r.select.p50, 2, ' ms')} | | (cached) |`,
    `| NL \`top K <dim> by <total/average> <measure>\`, uncached, p50 of ${nlCount} distinct | ${of((r) => r.nlUncached.p50, 0, ' ms')} | | p50 < 300 ms |`,
    `| NL \`top 10 product by total revenue\` repeated: p50 | ${of((r) => r.nl.p50, 1, ' ms')} | | (cached) |`,
    '',
    'Uncached rows are distinct queries, each executed by DuckDB: selects with a `region` filter (or none) and an ' +
      'offset (0 to a few thousand rows) never used before; NL queries over 4 dimensions × 3 measures × total/average ' +
      'with a different K on each round, each run on the dataset table (DuckDB needs no precomputed summaries). ' +
      'In the repeated rows, "first" is the cold execution and p50/p95 measure ' +
      'the result cache (dataset versions are immutable, so a cached result cannot be stale) plus HTTP, ' +
      'authentication and the catalogue lookup.',
    '',
    `Command: \`ROWS=${ROWS} N=${REQUESTS} ROUNDS=${rounds.length} bash bench/data/run.sh\`.`,
  ];
  writeSection('data', lines);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
