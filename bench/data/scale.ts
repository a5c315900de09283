/**
 * Datasets at 10 million rows (issue 37, item 6), over HTTP against the built daemon (dist/main.js) as a process:
 *
 * 1. generates a deterministic ROWS-row, 8-column CSV (default 10,000,000, about 550 MB) under var/bench-scale/
 *    (kept for the next run, never committed), and a 1,000,000-row CSV of its first rows;
 * 2. PAIRS times over (default 3), in turn: times the sqlite3 shell's `.import` of the big CSV into a fresh database
 *    (the yardstick), then signs up once, creates a file connector on the CSV (`file_path`) and times
 *    `POST /v1/data/connect`, sampling every 100 ms the resident memory (VmRSS) of the daemon and of every process
 *    under it (parse threads are in the daemon; report processes and the engine are its children). The ratio is taken
 *    pair by pair, so a machine whose speed drifts between runs still compares like with like; the peak RSS is the
 *    largest sum seen;
 * 4. runs ROUNDS rounds of three typed queries, each round with filters not used before (nothing is answered from
 *    the result cache): a filtered group-by with two aggregates, a filter + sort + limit 100, and a top 10 by sum
 *    over the 200,000-value `customer` dimension; ROUNDS fits of the `revenue` column (issue 38's 2 s goal); then N
 *    distinct select + limit 100 on the 1M-row dataset.
 *
 * Every figure is printed with the 1-minute load average when it was taken; a figure taken above QUIET_LOAD is
 * labelled "under load". The section goes into docs/BENCHMARKS.md (bench:data-scale) only with WRITE_DOC=1.
 *
 *   bash bench/data/scale.sh                             # ROWS=10000000 PAIRS=3 ROUNDS=5 N=200
 *   ROWS=1000000 ROUNDS=3 bash bench/data/scale.sh       # a quick look
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { call, startDaemon, writeSection } from '../support/daemon';
import { random, REGIONS } from './generate-csv';
import { spread } from '../support/stats';

const ROWS = Number(process.env.ROWS ?? 10_000_000);
const SMALL_ROWS = Math.min(ROWS, 1_000_000);
const PAIRS = Number(process.env.PAIRS ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const REQUESTS = Number(process.env.N ?? 200);
const QUIET_LOAD = Number(process.env.QUIET_LOAD ?? 1.5);
const ENGINE = process.env.ENGINE_LABEL ?? 'SQLite (main)';
const WORK = resolve('var', 'bench-scale');

const PRODUCTS = 200;
const CUSTOMERS = 200_000;

async function generateCsv(path: string, rows: number): Promise<void> {
  const next = random(37);
  const out = createWriteStream(path);
  out.write('order_id,order_date,region,product,customer,units,revenue,is_returned\n');
  const start = Date.UTC(2023, 0, 1);
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    const date = new Date(start + Math.floor(next() * 730) * 86_400_000).toISOString().slice(0, 10);
    const region = REGIONS[Math.floor(next() * REGIONS.length)];
    const product = `P-${String(Math.floor(next() * PRODUCTS)).padStart(3, '0')}`;
    const customer = `C-${String(Math.floor(next() * CUSTOMERS)).padStart(6, '0')}`;
    const units = 1 + Math.floor(next() * 50);
    const revenue = Math.round(units * (2 + next() * 498) * 100) / 100;
    chunk += `${i},${date},${region},${product},${customer},${units},${revenue},${next() < 0.05}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** The first `rows` data rows of `from` (header kept). */
async function headCsv(from: string, to: string, rows: number): Promise<void> {
  const out = createWriteStream(to);
  let n = -1;
  for await (const line of createInterface({ input: createReadStream(from) })) {
    if (n++ >= rows) break;
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function csvOf(rows: number, make: (path: string) => Promise<void>): Promise<string> {
  const path = join(WORK, 'imports', `orders-${rows}.csv`);
  if (!existsSync(path)) {
    console.error(`writing ${path}`);
    await make(`${path}.partial`);
    spawnSync('mv', [`${path}.partial`, path]);
  }
  return path;
}

/** VmRSS in MB of `pid` and every process under it. */
function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // ended while read
    }
  }
  let kb = 0;
  const visit = (p: number): void => {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // ended while read
    }
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return kb / 1024;
}

function seconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function shellImport(csv: string): number {
  const database = join(WORK, 'shell.sqlite');
  rmSync(database, { force: true });
  const started = process.hrtime.bigint();
  const shell = spawnSync('sqlite3', [database, '.mode csv', `.import ${csv} data`]);
  const elapsed = seconds(started);
  rmSync(database, { force: true });
  if (shell.status !== 0) throw new Error(`sqlite3 .import failed: ${shell.stderr.toString()}`);
  return elapsed;
}

interface Timed {
  readonly value: number;
  readonly load: number;
}

async function timeMs(run: () => Promise<unknown>): Promise<Timed> {
  const started = process.hrtime.bigint();
  await run();
  return { value: Number(process.hrtime.bigint() - started) / 1e6, load: loadavg()[0] };
}

/** The three queries of round `i`: filters no earlier round used. */
function queries(datasetId: string, i: number): Record<string, Record<string, unknown>> {
  return {
    'filtered group-by, two aggregates (`region` = …, `units` ≥ …, by `product`: sum revenue, avg units)': {
      dataset_id: datasetId,
      where: [
        { column: 'region', op: 'eq', value: REGIONS[i % REGIONS.length] },
        { column: 'units', op: 'gte', value: 1 + (i % 7) },
      ],
      group_by: ['product'],
      aggregates: [
        { function: 'sum', column: 'revenue' },
        { function: 'avg', column: 'units' },
      ],
      limit: 1000,
    },
    'filter + sort + limit 100 (`product` = …, by `revenue` desc)': {
      dataset_id: datasetId,
      where: [{ column: 'product', op: 'eq', value: `P-${String((17 * i) % PRODUCTS).padStart(3, '0')}` }],
      order_by: [{ column: 'revenue', direction: 'desc' }],
      limit: 100,
    },
    'top 10 `customer` (200,000 values) by sum of revenue (`units` ≥ …)': {
      dataset_id: datasetId,
      where: [{ column: 'units', op: 'gte', value: 2 + i }],
      group_by: ['customer'],
      aggregates: [{ function: 'sum', column: 'revenue' }],
      order_by: [{ column: 'sum_revenue', direction: 'desc' }],
      limit: 10,
    },
  };
}

/** "median (min–max)" in bold, then the load average over the samples, labelled when above QUIET_LOAD. */
function describe(samples: readonly Timed[], digits: number, unit: string): string {
  const loads = samples.map((s) => s.load);
  const label = Math.max(...loads) > QUIET_LOAD ? ' (under load)' : '';
  const figure = spread(
    samples.map((s) => s.value),
    digits,
    unit,
  );
  return `**${figure}** | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}${label}`;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  if (spawnSync('sqlite3', ['-version']).status !== 0) throw new Error('apt-get install -y sqlite3');
  mkdirSync(join(WORK, 'imports'), { recursive: true });
  const big = await csvOf(ROWS, (path) => generateCsv(path, ROWS));
  const small = SMALL_ROWS === ROWS ? big : await csvOf(SMALL_ROWS, (path) => headCsv(big, path, SMALL_ROWS));
  const csvMb = statSync(big).size / 1e6;

  const daemon = await startDaemon({
    NODE_ENV: 'test',
    SERVICE_IMPORT_DIR: join(WORK, 'imports'),
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_RUNTIME_SUPERVISE: 'false',
    ENGINE_POOL_SIZE: '0',
    SERVICE_QUERY_TIMEOUT_S: '300',
  });
  try {
    const signup = await call(daemon.url, 'POST', '/auth/signup', undefined, {
      email: `bench-scale-${Date.now()}@example.test`,
      password: 'benchmark password',
      name: 'Bench',
    });
    const token = signup.api_key.raw_key as string;
    const connect = async (name: string, csv: string, rows: number) => {
      const connector = await call(daemon.url, 'POST', '/v1/connectors', token, {
        name,
        connector_type: 'file',
        config: { file_type: 'csv', file_path: csv },
      });
      const connectStarted = process.hrtime.bigint();
      const connected = await call(daemon.url, 'POST', '/v1/data/connect', token, {
        connection_type: 'file',
        dataset_name: name,
        connection_id: connector.id,
        visibility: 'private',
      });
      if (connected.status !== 'ready' || connected.schema_summary.rows !== rows) {
        throw new Error(`ingest failed: ${JSON.stringify(connected)}`);
      }
      console.error(`${name}: POST /v1/data/connect alone ${seconds(connectStarted).toFixed(2)} s`);
      return connected.dataset_id as string;
    };

    const idleMb = treeRssMb(daemon.pid);
    let peakMb = idleMb;
    const shells: Timed[] = [];
    const ingests: Timed[] = [];
    const ratios: number[] = [];
    let bigId = '';
    for (let pair = 0; pair < PAIRS; pair++) {
      const loadBeforeShell = loadavg()[0];
      const shell = shellImport(big);
      shells.push({ value: shell, load: loadBeforeShell });
      console.error(
        `pair ${pair + 1}: sqlite3 .import ${shell.toFixed(2)} s (load ${loadBeforeShell.toFixed(1)})`,
      );
      const sampler = setInterval(() => {
        peakMb = Math.max(peakMb, treeRssMb(daemon.pid));
      }, 100);
      const loadBeforeIngest = loadavg()[0];
      const ingestStarted = process.hrtime.bigint();
      const id = await connect(pair === 0 ? 'orders' : `orders_${pair + 1}`, big, ROWS).finally(() =>
        clearInterval(sampler),
      );
      bigId ||= id;
      const ingest = seconds(ingestStarted);
      ingests.push({ value: ingest, load: Math.max(loadBeforeIngest, loadavg()[0]) });
      ratios.push(ingest / shell);
      console.error(
        `pair ${pair + 1}: connect ${ingest.toFixed(2)} s, ${(ingest / shell).toFixed(2)}× the shell, peak so far ${peakMb.toFixed(0)} MB`,
      );
    }

    const byQuery = new Map<string, Timed[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, body] of Object.entries(queries(bigId, round))) {
        const timed = await timeMs(() => call(daemon.url, 'POST', '/v1/query', token, body));
        byQuery.set(label, [...(byQuery.get(label) ?? []), timed]);
        console.error(
          `round ${round + 1}: ${timed.value.toFixed(0)} ms (load ${timed.load.toFixed(1)}) ${label}`,
        );
      }
    }

    const fits: Timed[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const timed = await timeMs(() =>
        call(daemon.url, 'POST', `/v1/data/${bigId}/fit`, token, { column: 'revenue' }),
      );
      fits.push(timed);
      console.error(`fit round ${round + 1}: ${timed.value.toFixed(0)} ms (load ${timed.load.toFixed(1)})`);
    }

    const smallId = await connect('orders_1m', small, SMALL_ROWS);
    const selects: Timed[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const region = i % (REGIONS.length + 1);
      selects.push(
        await timeMs(() =>
          call(daemon.url, 'POST', '/v1/query', token, {
            dataset_id: smallId,
            select: ['order_id', 'order_date', 'region', 'revenue'],
            ...(region < REGIONS.length
              ? { where: [{ column: 'region', op: 'eq', value: REGIONS[region] }] }
              : {}),
            limit: 100,
            offset: 100 * Math.floor(i / (REGIONS.length + 1)),
          }),
        ),
      );
    }

    const selectMs = selects.map((s) => s.value).sort((a, b) => a - b);
    const lines = [
      `### ${ENGINE}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `${ROWS.toLocaleString('en-US')} rows × 8 columns of CSV (${csvMb.toFixed(0)} MB), ${cpus().length} cores, Node ${process.version}; ` +
        `queries: ${ROUNDS} rounds, each with filters no earlier round used; selects: ${REQUESTS} distinct. ` +
        `"under load" marks a figure taken with the 1-minute load average above ${QUIET_LOAD}.`,
      '',
      '| Measure | median (min–max) | load average | Target |',
      '|---|---|---|---|',
      `| sqlite3 shell \`.import\` (fresh database), ${PAIRS} runs | ${describe(shells, 2, ' s')} | yardstick |`,
      `| \`POST /v1/data/connect\` (file connector), each run after one of the shell's | ${describe(ingests, 2, ' s')} | |`,
      `| connect ÷ \`.import\`, pair by pair | **${spread(ratios, 2, '×')}** | | ≤ 1.0× |`,
      `| RSS of the daemon and its processes, peak during the connect (idle before) | **${peakMb.toFixed(0)} MB** (${idleMb.toFixed(0)} MB) | | ≤ 600 MB |`,
      ...[...byQuery].map(
        ([label, samples], i) =>
          `| ${label} | ${describe(samples, 0, ' ms')} | ${['p50 ≤ 150 ms', 'p50 ≤ 100 ms', 'p50 ≤ 150 ms'][i]} |`,
      ),
      `| \`POST /v1/data/{id}/fit\` of \`revenue\` (every family; the whole column, sampled to 1,000,000 values) | ${describe(fits, 0, ' ms')} | < 2 s (issue 38) |`,
      `| select 4 columns + limit 100 at ${SMALL_ROWS.toLocaleString('en-US')} rows, p50 / p95 of ${REQUESTS} distinct | ` +
        `**${percentile(selectMs, 50).toFixed(2)} ms** / ${percentile(selectMs, 95).toFixed(2)} ms | ` +
        `${Math.min(...selects.map((s) => s.load)).toFixed(1)}–${Math.max(...selects.map((s) => s.load)).toFixed(1)}` +
        `${Math.max(...selects.map((s) => s.load)) > QUIET_LOAD ? ' (under load)' : ''} | p50 < 5 ms |`,
      '',
      `Command: \`ROWS=${ROWS} PAIRS=${PAIRS} ROUNDS=${ROUNDS} N=${REQUESTS} bash bench/data/scale.sh\`.`,
    ];
    if (process.env.WRITE_DOC === '1')
      writeSection(`data-scale-${ENGINE.split(' ')[0].toLowerCase()}`, lines);
    else process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await daemon.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
