/**
 * HTTP benchmark of POST /v1/simulate (10,000 runs × 5 uniform variables): the warm pool's p50 round trip next to
 * the engine's own compute_ms, and the subprocess fallback's p50 beside it. Each mode runs the built daemon
 * (dist/main.js) as a real process with its own data dir, signs up once for an API key, warms up, then sends
 * requests one after another over one keep-alive connection (node:http: Node's fetch adds about 0.3 ms of its own per
 * request, which the *client floor* column shows against a trivial in-process server).
 *
 *   bash bench/engine/http.sh                  # N=400 requests per mode; writes docs/BENCHMARKS.md
 *   N=1000 bash bench/engine/http.sh
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const REQUESTS = Number(process.env.N ?? 400);
const WARMUP = 50;

const BODY = {
  runs: 10_000,
  seed: 42,
  scenario: {
    variables: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((v, i) => [v, { low: -i, high: 10 + i }])),
    objective: 'maximize_net_value',
    model: 'a * b - c + d * e',
  },
};

interface Daemon {
  readonly url: string;
  stop(): Promise<void>;
}

async function startDaemon(env: Record<string, string>): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-'));
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let onData: (chunk: Buffer) => void = () => undefined;
  const url = await new Promise<string>((resolveUrl, reject) => {
    onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"event":"daemon_started"'));
      if (line) resolveUrl((JSON.parse(line) as { address: string }).address.replace('[::1]', '127.0.0.1'));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the daemon exited with ${String(code)}:\n${output}`)));
  });
  // Still drained (a full pipe would stall the daemon's logger), but no longer collected and re-split per chunk:
  // that grew with every request's log line and inflated the client's own time.
  child.stdout.off('data', onData);
  child.stdout.resume();
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function apiKey(url: string): Promise<string> {
  const response = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${Date.now()}@example.com`,
      password: 'benchmark-password-1',
      name: 'Bench',
    }),
  });
  const body = (await response.json()) as { api_key?: { raw_key?: string } };
  if (!response.ok || !body.api_key?.raw_key) throw new Error(`sign-up failed (${response.status})`);
  return body.api_key.raw_key;
}

interface Sample {
  readonly wallMs: number;
  readonly computeMs: number;
  readonly mode: string;
}

/** One keep-alive connection; answers status and parsed JSON body. */
class KeepAliveClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly target: URL;

  constructor(
    url: string,
    private readonly key?: string,
  ) {
    this.target = new URL(url);
  }

  send(method: string, path: string, body?: string): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string | number> = this.key ? { authorization: `Bearer ${this.key}` } : {};
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    return new Promise((resolveReply, reject) => {
      const outgoing = request(
        { host: this.target.hostname, port: this.target.port, path, method, agent: this.agent, headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolveReply({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

async function measure(client: KeepAliveClient, count: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const payload = JSON.stringify(BODY);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const reply = await client.send('POST', '/v1/simulate', payload);
    const wallMs = performance.now() - started;
    const body = reply.body as { compute_ms: number; engine_mode: string };
    if (reply.status !== 200)
      throw new Error(`POST /v1/simulate answered ${reply.status}: ${JSON.stringify(body)}`);
    samples.push({ wallMs, computeMs: body.compute_ms, mode: body.engine_mode });
  }
  return samples;
}

/** Sum and count of the daemon's engine_compute_seconds histogram for one path (its engine round trip). */
async function engineRoundTrip(url: string, path: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (suffix: string): number =>
    Number(
      new RegExp(`^engine_compute_seconds_${suffix}\\{path="${path}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    );
  return { sum: read('sum'), count: read('count') };
}

/** The HTTP and authentication floor: an authenticated route that does no work. */
async function floor(client: KeepAliveClient, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await client.send('GET', '/v1/infrastructure');
    times.push(performance.now() - started);
  }
  return times;
}

/** The client's own share: the same requests against a server that answers a fixed body at once. */
async function clientFloor(count: number): Promise<{ http: number[]; fetch: number[] }> {
  const answer = JSON.stringify({ padding: 'x'.repeat(1500) });
  const server = createServer((incoming, outgoing) => {
    incoming.resume();
    incoming.on('end', () => outgoing.setHeader('content-type', 'application/json').end(answer));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new KeepAliveClient(url, 'key');
  const payload = JSON.stringify(BODY);
  const http: number[] = [];
  const viaFetch: number[] = [];
  try {
    for (let i = 0; i < WARMUP + count; i++) {
      let started = performance.now();
      await client.send('POST', '/', payload);
      if (i >= WARMUP) http.push(performance.now() - started);
      started = performance.now();
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer key' },
        body: payload,
      });
      await response.json();
      if (i >= WARMUP) viaFetch.push(performance.now() - started);
    }
  } finally {
    client.close();
    await new Promise((closed) => server.close(closed));
  }
  return { http, fetch: viaFetch };
}

/**
 * The pool's own cost without HTTP: one `simulate --serve` worker driven over its socket as the daemon does
 * (4-byte length + JSON frames), round trip per request next to its compute_ms.
 */
async function workerRoundTrips(count: number): Promise<{ wallMs: number[]; computeMs: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'ds-bench-worker-'));
  const socketPath = join(dir, 'w.sock');
  const worker = spawn(join(ROOT, 'engine_build', 'simulate'), ['--serve', socketPath], { stdio: 'ignore' });
  try {
    let socket: ReturnType<typeof connect> | undefined;
    for (let i = 0; i < 500 && !socket; i++) {
      socket = await new Promise((resolveSocket) => {
        const s = connect({ path: socketPath });
        s.once('connect', () => resolveSocket(s));
        s.once('error', () => setTimeout(() => resolveSocket(undefined), 10));
      });
    }
    if (!socket) throw new Error('the worker did not create its socket');
    const open = socket;
    open.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    const waiting: ((frame: { result?: { compute_ms: number } }) => void)[] = [];
    open.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32BE(0)) {
        const length = buffer.readUInt32BE(0);
        const frame = JSON.parse(buffer.toString('utf8', 4, 4 + length)) as {
          result?: { compute_ms: number };
        };
        buffer = buffer.subarray(4 + length);
        waiting.shift()?.(frame);
      }
    });
    const next = () => new Promise<{ result?: { compute_ms: number } }>((r) => waiting.push(r));
    await next();
    const wallMs: number[] = [];
    const computeMs: number[] = [];
    for (let i = 0; i < WARMUP + count; i++) {
      const payload = Buffer.from(
        JSON.stringify({ type: 'run', id: `r${i}`, deadline_ms: 60000, request: BODY }),
      );
      const header = Buffer.alloc(4);
      header.writeUInt32BE(payload.length);
      const started = performance.now();
      const reply = next();
      open.write(Buffer.concat([header, payload]));
      const frame = await reply;
      if (i < WARMUP) continue;
      wallMs.push(performance.now() - started);
      computeMs.push(frame.result?.compute_ms ?? NaN);
    }
    open.end();
    return { wallMs, computeMs };
  } finally {
    worker.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const fmt = (ms: number): string => ms.toFixed(2);

interface ModeResult {
  readonly label: string;
  readonly samples: Sample[];
  /** Mean engine round trip as the daemon measured it (pool: socket + framing + compute; fallback: process). */
  readonly roundTripMs: number;
  readonly floorMs: number[];
}

async function runMode(label: string, env: Record<string, string>): Promise<ModeResult> {
  const daemon = await startDaemon(env);
  const client = new KeepAliveClient(daemon.url, await apiKey(daemon.url));
  try {
    await measure(client, WARMUP);
    const path = label === 'pool' ? 'pool' : 'subprocess';
    const before = await engineRoundTrip(daemon.url, path);
    const samples = await measure(client, REQUESTS);
    const after = await engineRoundTrip(daemon.url, path);
    const roundTripMs = ((after.sum - before.sum) / Math.max(1, after.count - before.count)) * 1000;
    return { label, samples, roundTripMs, floorMs: await floor(client, REQUESTS) };
  } finally {
    client.close();
    await daemon.stop();
  }
}

async function main(): Promise<void> {
  const pool = await runMode('pool', { ENGINE_POOL_SIZE: '1' });
  const fallback = await runMode('subprocess_fallback', {
    ENGINE_POOL_SIZE: '0',
    RUNTIME_FALLBACK_MODE: 'allow',
  });
  const rows = [pool, fallback].map(({ label, samples, roundTripMs, floorMs }) => {
    const modes = [...new Set(samples.map((s) => s.mode))].join(',');
    if (modes !== label) throw new Error(`expected engine_mode ${label}, got ${modes}`);
    const wall = samples.map((s) => s.wallMs);
    const compute = samples.map((s) => s.computeMs);
    const meanCompute = compute.reduce((a, b) => a + b, 0) / compute.length;
    const wallOverCompute = quantile(wall, 0.5) - quantile(compute, 0.5);
    return (
      `| ${label} | ${samples.length} | ${fmt(quantile(wall, 0.5))} / ${fmt(quantile(wall, 0.1))} | ` +
      `${fmt(quantile(compute, 0.5))} | ${fmt(wallOverCompute)} | ${fmt(roundTripMs)} / ${fmt(meanCompute)} | ` +
      `${fmt(quantile(floorMs, 0.5))} / ${fmt(quantile(floorMs, 0.1))} |`
    );
  });
  const client = await clientFloor(REQUESTS);
  const direct = await workerRoundTrips(REQUESTS);
  const overhead = direct.wallMs.map((w, i) => w - direct.computeMs[i]);
  const load = loadavg()[0].toFixed(1);
  const section = [
    '<!-- bench:engine-http:start -->',
    '## Engine over HTTP: `POST /v1/simulate`, 10,000 runs × 5 variables',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ` +
      `load average ${load} at the end (a shared machine: p50 wall times are inflated; p10 is closer to an idle box). ` +
      'The built daemon runs as a process; one client sends requests one after another over a keep-alive connection ' +
      `(${WARMUP} warm-up requests first). *Wall* is the client's round trip of \`POST /v1/simulate\`; *compute* is the ` +
      "engine's own `compute_ms`; *engine round trip* is the daemon's mean time from handing the request to a worker " +
      '(or spawning the one-shot process) to having its result, from `engine_compute_seconds`; the *HTTP floor* is ' +
      'an authenticated `GET /v1/infrastructure` on the same daemon (HTTP, auth, no work). Pool overhead = engine ' +
      'round trip − compute; the rest of the wall time is the HTTP floor plus validation and recording the run. ' +
      'The client is `node:http` with a keep-alive agent; the *client floor* below is its own round trip against a ' +
      "trivial in-process server (Node's `fetch` shown beside it for comparison with earlier figures).",
    '',
    '```sh',
    `N=${REQUESTS} bash bench/engine/http.sh`,
    '```',
    '',
    '| engine_mode | requests | wall p50 / p10 (ms) | compute_ms p50 | wall p50 − compute p50 (ms) | engine round trip / compute, mean (ms) | HTTP floor p50 / p10 (ms) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Pool cost alone (one worker driven over its socket, no HTTP, ${direct.wallMs.length} requests): round trip p50 ` +
      `${fmt(quantile(direct.wallMs, 0.5))} ms (p10 ${fmt(quantile(direct.wallMs, 0.1))}) for compute_ms p50 ` +
      `${fmt(quantile(direct.computeMs, 0.5))}; round trip − compute p50 ${fmt(quantile(overhead, 0.5))} ms ` +
      `(p10 ${fmt(quantile(overhead, 0.1))}).`,
    '',
    `Client floor (${client.http.length} requests to a trivial server): node:http p50 ${fmt(quantile(client.http, 0.5))} ms ` +
      `(p10 ${fmt(quantile(client.http, 0.1))}); fetch p50 ${fmt(quantile(client.fetch, 0.5))} ms ` +
      `(p10 ${fmt(quantile(client.fetch, 0.1))}).`,
    '<!-- bench:engine-http:end -->',
  ].join('\n');
  process.stdout.write(`${section}\n`);

  const file = join(ROOT, 'docs', 'BENCHMARKS.md');
  let doc = '# Benchmarks\n';
  try {
    doc = readFileSync(file, 'utf8');
  } catch {
    // first benchmark to write the file
  }
  const start = doc.indexOf('<!-- bench:engine-http:start -->');
  const end = doc.indexOf('<!-- bench:engine-http:end -->');
  doc =
    start >= 0 && end > start
      ? doc.slice(0, start) + section + doc.slice(end + '<!-- bench:engine-http:end -->'.length)
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, doc);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
