import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SocketRuntimeClient } from '../../src/modules/runtime-library/socket-runtime-client';

/**
 * 1. `query_data` through MCP Streamable HTTP (the SDK's own client) against `POST /v1/query` with the same body,
 *    on one booted daemon, alternating rounds so both see the same machine load; sequential calls, latency per call.
 * 2. `execute` round trips on the runtime-library socket (what execute_runtime_library does after its MCP layer).
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

function summary(samples: number[]): { p50: number; p95: number; p99: number } {
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
    const samples: Record<'mcp' | 'http', number[]> = { mcp: [], http: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, call] of [
        ['http', viaHttp],
        ['mcp', viaMcp],
      ] as const) {
        for (let i = 0; i < calls; i += 1) {
          const started = performance.now();
          await call();
          samples[name].push(performance.now() - started);
        }
      }
    }
    await client.close();
    const http = summary(samples.http);
    const mcp = summary(samples.mcp);
    console.log(
      `query_data, ${rows}-row dataset, ${rounds} × ${calls} sequential calls each, interleaved rounds`,
    );
    console.log('| Path | p50 ms | p95 ms | p99 ms |');
    console.log('|---|---|---|---|');
    console.log(`| POST /v1/query | ${ms(http.p50)} | ${ms(http.p95)} | ${ms(http.p99)} |`);
    console.log(
      `| MCP query_data (Streamable HTTP, SDK client) | ${ms(mcp.p50)} | ${ms(mcp.p95)} | ${ms(mcp.p99)} |`,
    );
    console.log(`| overhead | **${ms(mcp.p50 - http.p50)}** | ${ms(mcp.p95 - http.p95)} | |`);

    const runtime = new SocketRuntimeClient(join(dataDir, 'run', 'runtime.sock'), 5000);
    const cashflows = [-1000, 300, 400, 500, 200];
    for (let i = 0; i < 500; i += 1)
      await runtime.execute('finance', 'npv', { rate: 0.08, cashflows }, `w${i}`);
    const socketSamples: number[] = [];
    const engineSamples: number[] = [];
    for (let i = 0; i < rounds * calls * 2; i += 1) {
      const started = performance.now();
      const result = await runtime.execute('finance', 'npv', { rate: 0.08, cashflows }, `r${i}`);
      socketSamples.push(performance.now() - started);
      engineSamples.push(result.latencyMs);
    }
    runtime.close();
    const socket = summary(socketSamples);
    const inside = summary(engineSamples);
    console.log('');
    console.log(
      `runtime execute finance.npv, ${socketSamples.length} sequential round trips on one pooled socket`,
    );
    console.log('| Measure | p50 ms | p95 ms | p99 ms |');
    console.log('|---|---|---|---|');
    console.log(
      `| socket round trip (client) | **${ms(socket.p50)}** | ${ms(socket.p95)} | ${ms(socket.p99)} |`,
    );
    console.log(
      `| latency_ms reported by the runtime | ${ms(inside.p50)} | ${ms(inside.p95)} | ${ms(inside.p99)} |`,
    );
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
