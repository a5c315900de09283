/**
 * Load and soak (docs/reliability.md), on the built daemon as a real process over loopback; not in CI.
 *
 * 1. 60 s per hot route with autocannon (GET /v1/health, GET /v1/me, POST /v1/simulate, POST /v1/query): the
 *    maximum throughput and its latency percentiles.
 * 2. A mixed soak at half the measured maximum (each route at an equal share of half its own maximum, paced
 *    evenly by ./paced-load.ts), SOAK_MINUTES long (default 30), with async jobs whose signed callbacks go to a loopback receiver, push and query triggers at a short interval, and SQL reports. RSS and
 *    open descriptors are sampled from /proc every 10 s. Printed: errors, p99 of /v1/me, RSS growth and
 *    descriptors between minute 5 (scaled: a sixth of the way in) and the end, whether the outbox drained within
 *    60 s of the end.
 *
 *   bash bench/soak/run.sh                      # ROUTE_SECONDS=60 SOAK_MINUTES=30
 *   SOAK_MINUTES=3 bash bench/soak/run.sh       # a short proof
 *
 * The paced clients run one process per route (SOAK_CLIENT_PROCESSES=4, the default) or all in this process
 * (SOAK_CLIENT_PROCESSES=1, the harness before). Each route's line also gives how late its requests left and the
 * event-loop delay of the process that sent them, so a slow client shows as such. The daemon's own event-loop
 * delay (prom-client's `nodejs_eventloop_lag_*`, reset at each scrape) and its busy engine workers are read from
 * /metrics every SOAK_SCRAPE_S seconds (default 5). SOAK_RATES=1955,1716,281,149 skips the route phase and soaks at
 * those rates (health, /v1/me, simulate, query), for A/B runs at the same load. ./loop-probe.ts, preloaded into
 * the daemon (SOAK_PROBE=0 leaves it out), adds its event-loop delay at 1 ms resolution and its GC pauses;
 * BENCH_DAEMON_NODE_ARGS adds Node flags to the daemon (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { machineLine, quantile, signupKey, startDaemon } from '../support/daemon';
import { PacedResult, PacedTarget, SLOW_MS, pacedLoad, pacedLoadInChild } from './paced-load';

const ROUTE_SECONDS = Number(process.env.ROUTE_SECONDS ?? 60);
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const SAMPLE_MS = 10_000;
const CLIENT_PROCESSES = Number(process.env.SOAK_CLIENT_PROCESSES ?? 4);
const SCRAPE_MS = Number(process.env.SOAK_SCRAPE_S ?? 5) * 1000;

interface Route {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly auth: boolean;
}

interface Measured {
  readonly rps: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly non2xx: number;
  readonly errors: number;
}

const SIMULATION = {
  runs: 1000,
  seed: 1,
  scenario: {
    variables: { demand: { low: 80, high: 120 }, price: { low: 9, high: 11 } },
    objective: 'maximize_net_value',
    model: 'demand * price - 900',
  },
};

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300)
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text.length > 0 ? JSON.parse(text) : undefined;
}

function run(url: string, key: string, route: Route, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}${route.path}`,
    method: route.method,
    connections: CONNECTIONS,
    duration: seconds,
    headers: {
      ...(route.auth ? { authorization: `Bearer ${key}` } : {}),
      ...(route.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(route.body === undefined ? {} : { body: route.body }),
  });
}

function measured(result: autocannon.Result): Measured {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function rssKib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN);
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One sample of the daemon's /metrics: event-loop delay since the last scrape (ms) and busy engine workers. */
interface DaemonSample {
  readonly atS: number;
  readonly lagP99: number;
  readonly lagMax: number;
  readonly busy: number;
}

function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  return response.text();
}

/** The engine queue wait histogram (cumulative buckets) as "≤ bound: count" pairs. */
function queueWait(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.startsWith('engine_queue_wait_seconds_bucket'))
    .map((l) => `≤${/le="([^"]+)"/.exec(l)?.[1] ?? '?'} s: ${l.split(' ')[1]}`)
    .join(', ');
}

async function main(): Promise<void> {
  // The loopback receiver of job callbacks and trigger webhooks.
  let callbacks = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      callbacks += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverPort = (receiver.address() as AddressInfo).port;
  const hook = `http://127.0.0.1:${receiverPort}/hook`;

  // The daemon's own event-loop delay (1 ms resolution) and GC pauses, through a preload (./loop-probe.ts).
  const probeFile = join(tmpdir(), `soak-probe-${process.pid}.json`);
  if (process.env.SOAK_PROBE !== '0')
    process.env.BENCH_DAEMON_NODE_ARGS = `${process.env.BENCH_DAEMON_NODE_ARGS ?? ''} --require ${join(__dirname, 'loop-probe.js')}`;
  const daemon = await startDaemon({
    SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiverPort}`,
    SOAK_PROBE_FILE: probeFile,
  });
  const out: string[] = [];
  const say = (line: string): void => {
    out.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    const key = await signupKey(daemon.url);
    const pid = daemon.pid;
    const connector = await call(daemon.url, key, 'POST', '/v1/connectors', {
      name: 'soak-stock',
      connector_type: 'file',
      config: {
        file_type: 'csv',
        content: [
          'sku,region,stock',
          ...Array.from({ length: 2000 }, (_, i) => `sku${i},r${i % 7},${i % 500}`),
        ].join('\n'),
      },
    });
    const dataset = (await call(daemon.url, key, 'POST', '/v1/data/connect', {
      connection_type: 'file',
      dataset_name: 'stock',
      connection_id: connector.id,
      visibility: 'private',
    })) as { dataset_id: string };
    const datasetId = dataset.dataset_id;

    const routes: Route[] = [
      { name: 'GET /v1/health', method: 'GET', path: '/v1/health', auth: false },
      { name: 'GET /v1/me', method: 'GET', path: '/v1/me', auth: true },
      {
        name: 'POST /v1/simulate',
        method: 'POST',
        path: '/v1/simulate',
        auth: true,
        body: JSON.stringify(SIMULATION),
      },
      {
        name: 'POST /v1/query',
        method: 'POST',
        path: '/v1/query',
        auth: true,
        body: JSON.stringify({ dataset_id: datasetId, select: ['region', 'stock'], where: [], limit: 100 }),
      },
    ];

    say(`## Load and soak (bench/soak)`);
    say('');
    say(
      `${machineLine()}; load average at start ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    say(`autocannon ${CONNECTIONS} connections over loopback, ${ROUTE_SECONDS} s per route`);
    say('');
    say('| Route | req/s | p50 ms | p90 ms | p99 ms | max ms | non-2xx | errors |');
    say('| --- | --: | --: | --: | --: | --: | --: | --: |');
    const max = new Map<string, Measured>();
    // SOAK_RATES=h,m,s,q: the soak's per-route rates given, the route phase skipped (A/B runs at equal load).
    const fixedRates = process.env.SOAK_RATES?.split(',').map(Number);
    for (const route of fixedRates ? [] : routes) {
      const m = measured(await run(daemon.url, key, route, ROUTE_SECONDS));
      max.set(route.name, m);
      say(
        `| ${route.name} | ${m.rps.toFixed(0)} | ${m.p50} | ${m.p90} | ${m.p99} | ${m.max} | ${m.non2xx} | ${m.errors} |`,
      );
    }

    // The mixed soak.
    const soakMs = SOAK_MINUTES * 60_000;
    const settledAtMs = soakMs / 6; // minute 5 of 30
    const pushTrigger = await call(daemon.url, key, 'POST', '/v1/triggers', {
      name: 'soak push',
      condition: { source: { kind: 'push' }, operator: 'lt', threshold: 100 },
      simulation: {
        ...SIMULATION,
        scenario: {
          ...SIMULATION.scenario,
          variables: { ...SIMULATION.scenario.variables, current_value: { low: 0, high: 0 } },
        },
      },
      webhook_url: hook,
    });
    for (let i = 0; i < 3; i += 1) {
      await call(daemon.url, key, 'POST', '/v1/triggers', {
        name: `soak query ${i}`,
        condition: {
          source: {
            kind: 'query',
            dataset_id: datasetId,
            query: { select: ['stock'], limit: 1 },
            value: { column: 'stock' },
          },
          operator: 'lt',
          threshold: 100,
        },
        simulation: {
          ...SIMULATION,
          scenario: {
            ...SIMULATION.scenario,
            variables: { ...SIMULATION.scenario.variables, current_value: { low: 0, high: 0 } },
          },
        },
        schedule: { interval_s: 10 },
        webhook_url: hook,
      });
    }
    let backgroundErrors = 0;
    let jobs = 0;
    let reports = 0;
    let fires = 0;
    const firstError: string[] = [];
    const noteError = (error: unknown): void => {
      backgroundErrors += 1;
      if (firstError.length < 3) firstError.push(String(error));
    };
    const started = Date.now();
    let soaking = true;
    const background = (async () => {
      while (soaking) {
        await Promise.all([
          call(daemon.url, key, 'POST', '/v1/jobs', { callback_url: hook, request: SIMULATION })
            .then(() => (jobs += 1))
            .catch(noteError),
          call(daemon.url, key, 'POST', '/v1/query/sql', {
            dataset_id: datasetId,
            sql: 'select region, count(*) as n, avg(stock) as s from stock group by region order by region',
          })
            .then(() => (reports += 1))
            .catch(noteError),
          call(daemon.url, key, 'POST', `/v1/triggers/${pushTrigger.id as string}/fire`, {
            current_value: 50,
          })
            .then(() => (fires += 1))
            .catch(noteError),
        ]);
        await sleep(1000);
      }
    })();
    const samples: { atMs: number; rss: number; fds: number }[] = [];
    const sampler = setInterval(() => {
      samples.push({ atMs: Date.now() - started, rss: rssKib(pid), fds: openFds(pid) });
    }, SAMPLE_MS);
    samples.push({ atMs: 0, rss: rssKib(pid), fds: openFds(pid) });
    const soakSeconds = Math.round(soakMs / 1000);
    // Half the machine for the whole mix: each route gets an equal share of half its own maximum, so the routes
    // together ask for half of what the daemon served at its limit (each at its maximum alone would be all of it).
    const targetOf = (route: Route): number =>
      fixedRates?.[routes.indexOf(route)] ?? (max.get(route.name)?.rps ?? 1) / (2 * routes.length);
    const daemonSamples: DaemonSample[] = [];
    await scrape(daemon.url); // resets the event-loop histogram
    const scraper = setInterval(() => {
      void scrape(daemon.url)
        .then((text) =>
          daemonSamples.push({
            atS: (Date.now() - started) / 1000,
            lagP99: metricValue(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
            lagMax: metricValue(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
            busy: metricValue(text, 'engine_workers_busy'),
          }),
        )
        .catch(noteError);
    }, SCRAPE_MS);
    const paced = (target: PacedTarget, rate: number): Promise<PacedResult> =>
      CLIENT_PROCESSES > 1
        ? pacedLoadInChild(target, rate, soakSeconds, CONNECTIONS)
        : pacedLoad(target, rate, soakSeconds, CONNECTIONS);
    const results = await Promise.all(
      routes.map((route) =>
        paced(
          {
            url: daemon.url,
            method: route.method,
            path: route.path,
            headers: {
              ...(route.auth ? { authorization: `Bearer ${key}` } : {}),
              ...(route.body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: route.body,
          },
          targetOf(route),
        ),
      ),
    );
    soaking = false;
    clearInterval(sampler);
    clearInterval(scraper);
    const finalMetrics = await scrape(daemon.url);
    await background;
    // The end of the soak is the last sample under load; this one, after the clients closed, is printed apart.
    const afterLoad = { atMs: Date.now() - started, rss: rssKib(pid), fds: openFds(pid) };

    // The outbox drains: no pending delivery within 60 s of the end.
    const endedAt = Date.now();
    let pending = -1;
    while (Date.now() - endedAt < 60_000) {
      const list = (await call(
        daemon.url,
        key,
        'GET',
        '/v1/webhooks/deliveries?status=pending&limit=100',
      )) as {
        deliveries: unknown[];
      };
      pending = list.deliveries.length;
      if (pending === 0) break;
      await sleep(1000);
    }
    const drainedS = (Date.now() - endedAt) / 1000;

    const settled = samples.find((s) => s.atMs >= settledAtMs) ?? samples[0];
    const last = samples[samples.length - 1];
    const rssGrowth = ((last.rss - settled.rss) / settled.rss) * 100;
    const errors = results.reduce((n, r) => n + r.non2xx + r.errors + r.dropped, 0) + backgroundErrors;
    const me = results[1];
    say('');
    say(
      `Mixed soak, ${SOAK_MINUTES} min at half the measured maximum (each of the ${routes.length} routes at ` +
        `1/${2 * routes.length} of its own maximum, requests evenly spaced, latency from the moment each was due), with an async job (callback ` +
        `to a loopback receiver), a SQL report and a push-trigger fire every second, and 3 query triggers every 10 s:`,
    );
    say('');
    say(
      '| Route | req/s achieved of the target | p50 ms | p99 ms | max ms | non-2xx | errors | not sent (behind) | ' +
        'sent late p99 / max ms | client loop delay p99 / max ms |',
    );
    say('| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |');
    routes.forEach((route, i) => {
      const m = results[i];
      say(
        `| ${route.name} | ${m.achievedPerSecond.toFixed(0)} of ${targetOf(route).toFixed(0)} | ${m.p50.toFixed(1)} | ` +
          `${m.p99.toFixed(1)} | ${m.max.toFixed(0)} | ${m.non2xx} | ${m.errors} | ${m.dropped} | ` +
          `${m.lateP99.toFixed(1)} / ${m.lateMax.toFixed(0)} | ${m.loopDelayP99.toFixed(1)} / ${m.loopDelayMax.toFixed(0)} |`,
      );
    });
    say('');
    say(`Paced clients: ${CLIENT_PROCESSES > 1 ? 'one process per route' : 'all routes in one process'}.`);
    const slow = results[1].slowPerSecond;
    const slowTotal = slow.reduce((a, b) => a + b, 0);
    const byMod10 = Array.from({ length: 10 }, (_, k) =>
      slow.filter((_, s) => s % 10 === k).reduce((a, b) => a + b, 0),
    );
    const worst = slow
      .map((n, s) => ({ n, s }))
      .sort((a, b) => b.n - a.n)
      .slice(0, 8);
    say(
      `- GET /v1/me answers over ${SLOW_MS} ms: ${slowTotal}, in ${slow.filter((n) => n > 0).length} of ${slow.length} seconds; ` +
        `by second mod 10: ${byMod10.join(' ')}; worst seconds: ${worst.map((w) => `${w.s} s: ${w.n}`).join(', ')}`,
    );
    const lagMaxes = daemonSamples.map((d) => d.lagMax);
    const lagP99s = daemonSamples.map((d) => d.lagP99);
    if (daemonSamples.length > 0)
      say(
        `- daemon event-loop delay per ${SCRAPE_MS / 1000} s scrape (${daemonSamples.length}): p99 median ${quantile(lagP99s, 0.5).toFixed(1)} ms, ` +
          `worst ${Math.max(...lagP99s).toFixed(1)} ms; max median ${quantile(lagMaxes, 0.5).toFixed(1)} ms, 90th ${quantile(lagMaxes, 0.9).toFixed(1)} ms, ` +
          `worst ${Math.max(...lagMaxes).toFixed(1)} ms; engine workers busy when scraped: ${daemonSamples.filter((d) => d.busy > 0).length} of ${daemonSamples.length}`,
      );
    say(`- daemon event-loop max per scrape (ms): ${lagMaxes.map((v) => v.toFixed(0)).join(' ')}`);
    say(`- engine queue wait (cumulative): ${queueWait(finalMetrics)}`);
    say('');
    say(
      `- errors: ${errors} (HTTP non-2xx and socket errors of the load, ${backgroundErrors} of the background work)`,
    );
    say(
      `- background work done: ${jobs} jobs, ${reports} SQL reports, ${fires} trigger fires; ${callbacks} callbacks received`,
    );
    say(`- p99 of GET /v1/me during the soak: ${me.p99.toFixed(1)} ms (goal under 20 ms)`);
    say(
      `- RSS from ${(settled.atMs / 60000).toFixed(1)} min to the end: ${(settled.rss / 1024).toFixed(0)} → ` +
        `${(last.rss / 1024).toFixed(0)} MiB (${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(1)} %; goal under 10 %)`,
    );
    say(
      `- open descriptors over the same span: ${settled.fds} → ${last.fds} (min ${Math.min(...samples.filter((s) => s.atMs >= settled.atMs).map((s) => s.fds))}, max ${Math.max(...samples.filter((s) => s.atMs >= settled.atMs).map((s) => s.fds))})`,
    );
    say(
      `- outbox: ${pending === 0 ? `drained ${drainedS.toFixed(0)} s after the end` : `${pending} deliveries still pending 60 s after the end`}`,
    );
    say(
      `- after the load stopped: RSS ${(afterLoad.rss / 1024).toFixed(0)} MiB, ${afterLoad.fds} open descriptors`,
    );
    say(
      `- load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    if (firstError.length > 0) say(`- first background errors: ${firstError.join(' | ')}`);
    say(
      `- RSS/fd samples (min: MiB/fds): ${samples.map((s) => `${(s.atMs / 60000).toFixed(1)}: ${(s.rss / 1024).toFixed(0)}/${s.fds}`).join(', ')}`,
    );
  } finally {
    await daemon.stop();
    receiver.close();
  }
  if (existsSync(probeFile)) {
    const probe = JSON.parse(readFileSync(probeFile, 'utf8')) as {
      loopDelayMs: Record<string, number>;
      gc: Record<string, { count: number; totalMs: number; maxMs: number; over10ms: number }>;
      longestGc: { ms: number; kind: string; atS: number }[];
    };
    rmSync(probeFile);
    const d = probe.loopDelayMs;
    say(
      `- daemon event-loop delay over its whole life (1 ms resolution): p50 ${d.p50}, p90 ${d.p90}, p99 ${d.p99}, ` +
        `p99.9 ${d.p999}, max ${d.max} ms`,
    );
    say(
      `- daemon GC: ${Object.entries(probe.gc)
        .map(
          ([k, g]) =>
            `${k} ${g.count}× total ${g.totalMs.toFixed(0)} ms max ${g.maxMs.toFixed(1)} ms (${g.over10ms} over 10 ms)`,
        )
        .join(
          '; ',
        )}; longest: ${probe.longestGc.map((g) => `${g.ms.toFixed(1)} ms ${g.kind} at ${g.atS.toFixed(0)} s`).join(', ')}`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
