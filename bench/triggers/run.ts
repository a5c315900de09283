/**
 * Issue 14's speed goals with TRIGGERS (default 1,000) enabled query triggers at a 60 s interval on one daemon
 * (`dist/main.js` as a process, SQLite):
 * - evaluation lateness: for every evaluation seen, `last_evaluated_at` minus its slot (`next_evaluation_at` − the
 *   interval), read from the API every 10 s; an upper bound, since `last_evaluated_at` is written when the
 *   evaluation ends. Reported per 60 s cycle (p50, p99) and as the median of the cycles' p99.
 * - fire → first webhook attempt: FIRING of the triggers hold their condition; with COOLDOWN_S 0 (the default) each
 *   fires once, at its first slot, and stays `firing` (a cooldown of 0 fires once per episode); with COOLDOWN_S 1
 *   each fires every slot. A loopback receiver takes each `trigger.fired` and the bench subtracts its `fired_at`
 *   from the arrival.
 * - `GET /v1/me` throughput (8 connections, windows of one whole 60 s cycle): ROUNDS windows before any trigger
 *   exists, then one window per cycle while they run (the lateness sampler runs between windows); the drop of the
 *   medians.
 * - CPU per evaluation: the CPU seconds of the daemon and its engine workers (from /proc) over CPU_WINDOW_S (default
 *   60 s) with no client load while the triggers run, less the same window idle before any trigger exists, divided
 *   by the evaluations recorded meanwhile (`trigger_evaluations_total`). 0 skips both windows.
 * DAEMON_NODE_OPTIONS is passed to the daemon as NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Usage: TRIGGERS=1000 FIRING=100 CYCLES=3 ROUNDS=3 bash bench/triggers/run.sh
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Pool } from 'undici';
import { TRIGGER_SIMULATION } from '../../test/factories/trigger-requests';
import { machineLine, quantile, signupKey, startDaemon, writeSection } from '../support/daemon';

const TRIGGERS = Number(process.env.TRIGGERS ?? 1000);
const FIRING = Number(process.env.FIRING ?? 100);
const COOLDOWN_S = Number(process.env.COOLDOWN_S ?? 0);
const CYCLES = Number(process.env.CYCLES ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const INTERVAL_S = 60;
const ME_CONNECTIONS = 8;
const ME_WINDOW_S = INTERVAL_S;
const CPU_WINDOW_S = Number(process.env.CPU_WINDOW_S ?? INTERVAL_S);
const CLOCK_TICKS = 100;

interface TriggerView {
  readonly id: string;
  readonly last_evaluated_at: string | null;
  readonly next_evaluation_at: string | null;
}

const median = (values: readonly number[]): number => quantile(values, 0.5);
const ms = (seconds: number): string => `${(seconds * 1000).toFixed(0)} ms`;

async function api(url: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** The fields of /proc/<pid>/stat after the command name. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system, every thread) of the process and its descendants (the engine workers) so far. */
function treeCpuSeconds(root: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), Number(statFields(Number(entry))[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of tree) {
    try {
      const fields = statFields(pid);
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / CLOCK_TICKS;
}

async function evaluationsRecorded(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('trigger_evaluations_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** CPU seconds of the daemon's process tree over a window of `seconds` with no client load, and the evaluations. */
async function cpuWindow(
  url: string,
  pid: number,
  seconds: number,
): Promise<{ cpu: number; evaluations: number }> {
  const evaluationsBefore = await evaluationsRecorded(url);
  const cpuBefore = treeCpuSeconds(pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = treeCpuSeconds(pid) - cpuBefore;
  return { cpu, evaluations: (await evaluationsRecorded(url)) - evaluationsBefore };
}

async function meThroughput(pool: Pool, key: string, windowS = ME_WINDOW_S): Promise<number> {
  const deadline = performance.now() + windowS * 1000;
  let ok = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const res = await pool.request({
        path: '/v1/me',
        method: 'GET',
        headers: { authorization: `Bearer ${key}` },
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`/v1/me answered ${res.statusCode}`);
      ok += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: ME_CONNECTIONS }, worker));
  return ok / ((performance.now() - started) / 1000);
}

async function listTriggers(url: string, key: string): Promise<TriggerView[]> {
  const all: TriggerView[] = [];
  let cursor: string | null = null;
  do {
    const page: { triggers: TriggerView[]; next_cursor: string | null } = await api(
      url,
      key,
      'GET',
      `/v1/triggers?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    all.push(...page.triggers);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

async function main(): Promise<void> {
  const fireDelays: number[] = [];
  const receiver = createServer((req, res) => {
    const arrived = Date.now();
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const event = JSON.parse(body) as { fired_at?: string };
      if (event.fired_at) fireDelays.push((arrived - Date.parse(event.fired_at)) / 1000);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  const daemon = await startDaemon({
    NODE_ENV: 'production',
    SERVICE_SIGNUP_ENABLED: 'true',
    SERVICE_RUNTIME_SUPERVISE: 'false',
    SERVICE_EGRESS_ALLOW: `127.0.0.1:${port}`,
    ...(process.env.DAEMON_NODE_OPTIONS ? { NODE_OPTIONS: process.env.DAEMON_NODE_OPTIONS } : {}),
  });
  const loadBefore = loadavg()[0];
  try {
    const key = await signupKey(daemon.url);
    const pool = new Pool(daemon.url, { connections: ME_CONNECTIONS });
    await meThroughput(pool, key, 10); // warm-up
    const before: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) before.push(await meThroughput(pool, key));
    const idle = CPU_WINDOW_S > 0 ? await cpuWindow(daemon.url, daemon.pid, CPU_WINDOW_S) : undefined;

    const connector = await api(daemon.url, key, 'POST', '/v1/connectors', {
      name: 'bench-stock',
      connector_type: 'file',
      config: { file_type: 'csv', content: 'sku,stock\nsku0,50\n' },
    });
    const dataset = await api(daemon.url, key, 'POST', '/v1/data/connect', {
      connection_type: 'file',
      dataset_name: 'bench-stock',
      connection_id: connector.id,
      visibility: 'private',
    });
    const creating = performance.now();
    for (let i = 0; i < TRIGGERS; i += 1) {
      const fires = i < FIRING;
      await api(daemon.url, key, 'POST', '/v1/triggers', {
        name: `bench ${i}`,
        condition: {
          source: {
            kind: 'query',
            dataset_id: dataset.dataset_id,
            query: { select: ['stock'], limit: 1 },
            value: { column: 'stock' },
          },
          operator: 'lt',
          // The stock is 50: the first FIRING triggers hold their condition, the rest never do.
          threshold: fires ? 100 : 10,
        },
        schedule: { interval_s: INTERVAL_S },
        cooldown_s: COOLDOWN_S,
        simulation: TRIGGER_SIMULATION,
        ...(fires ? { webhook_url: `http://127.0.0.1:${port}/fired` } : {}),
      });
    }
    const createSeconds = (performance.now() - creating) / 1000;

    // Evaluations seen, by trigger and slot: lateness = last_evaluated_at − slot.
    const lateness = new Map<string, { cycle: number; seconds: number }>();
    const started = Date.now();
    const cycleOf = (at: number): number => Math.floor((at - started) / (INTERVAL_S * 1000));
    const sample = async (): Promise<void> => {
      for (const t of await listTriggers(daemon.url, key)) {
        if (!t.last_evaluated_at || !t.next_evaluation_at) continue;
        const slot = Date.parse(t.next_evaluation_at) - INTERVAL_S * 1000;
        const evaluated = Date.parse(t.last_evaluated_at);
        if (evaluated < slot) continue; // the latest slot has not been evaluated yet
        lateness.set(`${t.id}@${slot}`, { cycle: cycleOf(slot), seconds: (evaluated - slot) / 1000 });
      }
    };
    // One /v1/me window per whole cycle, back to back: the evaluations of a cycle come in a burst (the triggers'
    // slots are as close together as their creation was), so a shorter window measures its phase, not the cycle.
    // The sampler (which lists every trigger) runs between the windows, so its own load is not counted.
    const during: number[] = [];
    for (let i = 0; i < CYCLES; i += 1) {
      during.push(await meThroughput(pool, key));
      await sample();
    }
    await sample();
    const busy = idle ? await cpuWindow(daemon.url, daemon.pid, CPU_WINDOW_S) : undefined;
    await pool.close();
    const loadAfter = loadavg()[0];

    const cycles = [...new Set([...lateness.values()].map((l) => l.cycle))].sort((a, b) => a - b);
    // Only whole cycles: the first starts once every trigger exists, the last may be cut by the end of sampling.
    const perCycle = cycles
      .map((cycle) => [...lateness.values()].filter((l) => l.cycle === cycle).map((l) => l.seconds))
      .filter((values) => values.length >= TRIGGERS * 0.9);
    const p99s = perCycle.map((values) => quantile(values, 0.99));
    const drop = 1 - median(during) / median(before);
    const cpuLines =
      idle && busy
        ? [
            '',
            `CPU per evaluation: ${(((busy.cpu - idle.cpu) / Math.max(1, busy.evaluations)) * 1000).toFixed(2)} ms`,
            `(the daemon and its engine workers used ${busy.cpu.toFixed(2)} s of CPU in ${CPU_WINDOW_S} s without client`,
            `load while ${busy.evaluations} evaluations were recorded, ${idle.cpu.toFixed(2)} s idle before the triggers).`,
          ]
        : [];
    const lines = [
      `## Triggers: ${TRIGGERS} enabled query triggers at a ${INTERVAL_S} s interval`,
      '',
      `Measured ${machineLine()}; the built daemon as a process on SQLite; ${FIRING} triggers hold their condition`,
      COOLDOWN_S > 0
        ? `(cooldown ${COOLDOWN_S} s: a fire, a 2,000-run simulation and a \`trigger.fired\` to a loopback receiver every slot), the`
        : '(cooldown 0: each fires once, a 2,000-run simulation and a `trigger.fired` to a loopback receiver, at its first slot, then stays `firing`), the',
      `others never do. Creating the ${TRIGGERS} triggers took ${createSeconds.toFixed(1)} s. Load average`,
      `${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (the bench's own load included).`,
      '',
      '```',
      `TRIGGERS=${TRIGGERS} FIRING=${FIRING} CYCLES=${CYCLES} ROUNDS=${ROUNDS}${COOLDOWN_S > 0 ? ` COOLDOWN_S=${COOLDOWN_S}` : ''} bash bench/triggers/run.sh`,
      '```',
      '',
      '| measure | per round / cycle | median | goal |',
      '| --- | --- | --- | --- |',
      `| evaluation lateness p99 (whole cycles: ${perCycle.map((v) => v.length).join(', ')} evaluations) | ${p99s.map(ms).join(', ')} | ${p99s.length ? ms(median(p99s)) : '-'} | < 2 s |`,
      `| evaluation lateness p50 | ${perCycle.map((v) => ms(quantile(v, 0.5))).join(', ')} | ${perCycle.length ? ms(median(perCycle.map((v) => quantile(v, 0.5)))) : '-'} | |`,
      `| fire → first webhook attempt (${fireDelays.length} fires) | p50 ${ms(quantile(fireDelays, 0.5))}, p99 ${ms(quantile(fireDelays, 0.99))} | ${ms(quantile(fireDelays, 0.5))} | p50 < 1 s |`,
      `| \`GET /v1/me\` req/s, no triggers | ${before.map((v) => v.toFixed(0)).join(', ')} | ${median(before).toFixed(0)} | |`,
      `| \`GET /v1/me\` req/s, triggers running | ${during.map((v) => v.toFixed(0)).join(', ')} | ${median(during).toFixed(0)} | drop < 10 % |`,
      '',
      `Drop of the \`/v1/me\` median: ${(drop * 100).toFixed(1)} %. Lateness is \`last_evaluated_at\` (written when an`,
      'evaluation ends, query included) minus its slot, so it bounds the start-to-slot lateness from above.',
      ...cpuLines,
    ];
    writeSection('triggers', lines);
  } finally {
    await daemon.stop();
    receiver.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
