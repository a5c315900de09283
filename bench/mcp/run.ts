import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SocketRuntimeClient } from '../../src/modules/runtime-library/socket-runtime-client';
import { writeSection } from '../support/daemon';
import { spread } from '../support/stats';

/**
 * On one booted daemon, each round times sequential calls of:
 * 1. `POST /v1/query`, then `query_data` with the same body through MCP Streamable HTTP (the SDK's own client);
 * 2. `execute` round trips on the runtime-library socket (what execute_runtime_library does after its MCP layer).
 * Each figure is reported per round and as the median (min–max) over the rounds, in docs/BENCHMARKS.md.
 * Usage: bench/mcp/run.sh [--calls N] [--rounds R] [--rows N]
 */
const ROOT = resolve(__dirname, '..', '..', '..', '..');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
}

async function waitUntilUp(baseUrl: string, daemon: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (daemon.exitCode !== null) throw new Error(`daemon exited with ${daemon.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/v1/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('daemon did not start');
}

function percentile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]) - sorted[lo]);
}

interface Summary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

function summary(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) };
}

const ms = (value: number): string => value.toFixed(3);

async function json(baseUrl: string, path: string, token: string | undefined, body: unknown): Promise<any> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

interface Round {
  readonly http: Summary;
  readonly mcp: Summary;
  readonly socket: Summary;
  readonly inside: Summary;
  /** 1-minute load average at the end of the round. */
  readonly load: number;
}

/** Latencies of `count` sequential calls, in ms. */
async function timed(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples;
}

function report(rows: number, calls: number, loadBefore: number, rounds: readonly Round[]): void {
  const loads = [loadBefore, ...rounds.map((r) => r.load)];
  const overheads = rounds.map((r) => r.mcp.p50 - r.http.p50);
  const of = (pick: (r: Round) => number): string => spread(rounds.map(pick), 3);
  writeSection('mcp', [
    '## MCP overhead and runtime-library round trips (`bench/mcp`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}; ` +
      `load average ${loadBefore.toFixed(1)} before, ${loads[loads.length - 1].toFixed(1)} at the end (highest ` +
      `${Math.max(...loads).toFixed(1)}). One daemon, a ${rows}-row CSV dataset; each round sends ${calls} sequential ` +
      "`POST /v1/query`, then the same query as the MCP tool `query_data` through the SDK's own `Client` over " +
      `Streamable HTTP (one session), then ${calls * 2} \`execute\` of \`finance.npv\` on the runtime-library socket ` +
      "with the daemon's own client (`SocketRuntimeClient`), timed at the client. Latencies in ms.",
    '',
    '```sh',
    `bench/mcp/run.sh --calls ${calls} --rounds ${rounds.length}`,
    '```',
    '',
    '| round | `POST /v1/query` p50 / p95 | MCP `query_data` p50 / p95 | MCP overhead p50 | runtime socket round trip p50 / p99 | runtime `latency_ms` p50 | load average |',
    '|---|---|---|---|---|---|---|',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${ms(r.http.p50)} / ${ms(r.http.p95)} | ${ms(r.mcp.p50)} / ${ms(r.mcp.p95)} | ` +
        `**${ms(r.mcp.p50 - r.http.p50)}** | ${ms(r.socket.p50)} / ${ms(r.socket.p99)} | ${ms(r.inside.p50)} | ${r.load.toFixed(1)} |`,
    ),
    '',
    `Over ${rounds.length} rounds, median (min–max): MCP overhead p50 **${spread(overheads, 3)} ms** (goal < 2 ms); ` +
      `\`POST /v1/query\` p50 ${of((r) => r.http.p50)} ms; MCP p50 ${of((r) => r.mcp.p50)} ms; runtime socket round ` +
      `trip p50 **${of((r) => r.socket.p50)} ms** (goal < 1 ms), p99 ${of((r) => r.socket.p99)} ms.`,
  ]);
}

async function main(): Promise<void> {
  const calls = option('calls', 300);
  const rounds = option('rounds', 5);
  const rows = option('rows', 1000);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const daemon = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: String(port),
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_SIGNUP_ENABLED: 'true',
      SERVICE_RUNTIME_SUPERVISE: 'true',
      ENGINE_POOL_SIZE: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitUntilUp(baseUrl, daemon);
    const signup = await json(baseUrl, '/auth/signup', undefined, {
      email: `bench-${Date.now()}@example.test`,
      password: 'correct horse battery staple',
      name: 'Bench',
    });
    const token = signup.api_key.raw_key as string;
    const csv = [
      'id,region,units,revenue',
      ...Array.from(
        { length: rows },
        (_, i) => `${i + 1},${['West', 'East', 'North', 'South'][i % 4]},${1 + (i % 7)},${(i * 37) % 1000}`,
      ),
    ].join('\n');
    const connector = await json(baseUrl, '/v1/connectors', token, {
      name: 'bench',
      connector_type: 'file',
      config: { file_type: 'csv', content: csv },
    });
    const dataset = await json(baseUrl, '/v1/data/connect', token, {
      connection_type: 'file',
      dataset_name: 'bench',
      connection_id: connector.id,
      visibility: 'private',
    });
    const query = {
      dataset_id: dataset.dataset_id as string,
      select: ['id', 'region', 'revenue'],
      where: [{ column: 'region', op: 'eq', value: 'East' }],
      order_by: [{ column: 'revenue', direction: 'desc' }],
      limit: 20,
    };

    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const viaMcp = async (): Promise<void> => {
      const result = await client.callTool({ name: 'query_data', arguments: query });
      if (result.isError) throw new Error(JSON.stringify(result.content));
    };
    const viaHttp = async (): Promise<void> => {
      await json(baseUrl, '/v1/query', token, query);
    };
    for (let i = 0; i < 100; i += 1) {
      await viaMcp();
      await viaHttp();
    }

    const runtime = new SocketRuntimeClient(join(dataDir, 'run', 'runtime.sock'), 5000);
    const cashflows = [-1000, 300, 400, 500, 200];
    const npv = async (id: string): Promise<number> =>
      (await runtime.execute('finance', 'npv', { rate: 0.08, cashflows }, id)).latencyMs;
    for (let i = 0; i < 500; i += 1) await npv(`w${i}`);

    const loadBefore = loadavg()[0];
    const figures: Round[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const http = await timed(calls, viaHttp);
      const mcp = await timed(calls, viaMcp);
      const inside: number[] = [];
      const socket = await timed(calls * 2, async () => {
        inside.push(await npv(`r${round}-${inside.length}`));
      });
      figures.push({
        http: summary(http),
        mcp: summary(mcp),
        socket: summary(socket),
        inside: summary(inside),
        load: loadavg()[0],
      });
    }
    await client.close();
    runtime.close();
    report(rows, calls, loadBefore, figures);
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
