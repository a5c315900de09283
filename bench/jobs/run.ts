/**
 * 1,000 async jobs of 10,000 runs, each with a job.completed callback to a loopback receiver, against the same
 * 1,000 simulations through POST /v1/simulate (same client concurrency), on the built daemon as a real process, in
 * ROUNDS rounds (a fresh daemon each). Checks that every callback arrived exactly once (by job_id and by webhook-id).
 *
 *   bash bench/jobs/run.sh          # JOBS=1000 CONCURRENCY=4 ROUNDS=5; writes docs/BENCHMARKS.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/EMPTY_DB bash bench/jobs/run.sh   # the same on PostgreSQL
 *   BENCH_DAEMON_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' ROUNDS=1 bash bench/jobs/run.sh   # a profile
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BENCH_DATABASE_URL,
  machineLine,
  processCpuMs,
  signupKey,
  startDaemon,
  storeEnv,
  writeSection,
} from '../support/daemon';
import { spread } from '../support/stats';

const JOBS = Number(process.env.JOBS ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** Passed to the daemon as NODE_OPTIONS (a CPU profile, a preload); not written to docs/BENCHMARKS.md. */
const DAEMON_NODE_OPTIONS = process.env.BENCH_DAEMON_NODE_OPTIONS;
const BODY = {
  runs: 10_000,
  scenario: {
    variables: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((v, i) => [v, { low: -i, high: 10 + i }])),
    objective: 'maximize_net_value',
    model: 'a * b - c + d * e',
  },
};

async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function post(url: string, key: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

interface Round {
  readonly syncPerSecond: number;
  readonly jobsPerSecond: number;
  readonly submitSeconds: number;
  /** From the last submission's answer to the last callback. */
  readonly tailSeconds: number;
  /** The daemon's CPU time (every thread, not the engine's processes) over the jobs phase, per job. */
  readonly cpuMsPerJob: number;
  /** Lines the daemon logged over the jobs phase, per job. */
  readonly logLinesPerJob: number;
  readonly loadBefore: number;
  readonly loadAfter: number;
}

/** One daemon: the synchronous path, then the jobs; throws unless every callback arrived exactly once. */
async function runRound(store: Record<string, string>): Promise<Round> {
  const loadBefore = loadavg()[0];
  const byJob = new Map<string, number>();
  const webhookIds = new Set<string>();
  let allDelivered: () => void = () => undefined;
  const delivered = new Promise<void>((r) => (allDelivered = r));
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { job_id: string };
      byJob.set(body.job_id, (byJob.get(body.job_id) ?? 0) + 1);
      webhookIds.add(String(req.headers['webhook-id']));
      res.end('ok');
      if (byJob.size === JOBS) allDelivered();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;

  const daemon = await startDaemon({
    ...store,
    ...(DAEMON_NODE_OPTIONS ? { NODE_OPTIONS: DAEMON_NODE_OPTIONS } : {}),
    SERVICE_EGRESS_ALLOW: `127.0.0.1:${port}`,
    SERVICE_JOB_CONCURRENCY: String(CONCURRENCY),
  });
  try {
    const key = await signupKey(daemon.url);
    await inParallel(50, CONCURRENCY, () =>
      post(daemon.url, key, '/v1/simulate', BODY).then(() => undefined),
    );

    const syncStarted = performance.now();
    await inParallel(JOBS, CONCURRENCY, () =>
      post(daemon.url, key, '/v1/simulate', BODY).then(() => undefined),
    );
    const syncSeconds = (performance.now() - syncStarted) / 1000;

    const linesBefore = lineCount(daemon.logFile);
    const cpuBefore = processCpuMs(daemon.pid);
    const jobsStarted = performance.now();
    await inParallel(JOBS, CONCURRENCY, async () => {
      await post(daemon.url, key, '/v1/jobs', { callback_url: `http://127.0.0.1:${port}/cb`, request: BODY });
    });
    const submitSeconds = (performance.now() - jobsStarted) / 1000;
    await delivered;
    const jobsSeconds = (performance.now() - jobsStarted) / 1000;
    const cpuMsPerJob = (processCpuMs(daemon.pid) - cpuBefore) / JOBS;
    const logLinesPerJob = (lineCount(daemon.logFile) - linesBefore) / JOBS;
    // Late duplicates would arrive now.
    await new Promise((r) => setTimeout(r, 2000));

    const duplicates = [...byJob.values()].filter((n) => n !== 1).length;
    const calls = [...byJob.values()].reduce((a, b) => a + b, 0);
    if (byJob.size !== JOBS || duplicates !== 0 || webhookIds.size !== JOBS || calls !== JOBS) {
      throw new Error(
        `callbacks: ${byJob.size} jobs, ${calls} calls, ${webhookIds.size} webhook-ids, ${duplicates} duplicated`,
      );
    }
    return {
      syncPerSecond: JOBS / syncSeconds,
      jobsPerSecond: JOBS / jobsSeconds,
      submitSeconds,
      tailSeconds: jobsSeconds - submitSeconds,
      cpuMsPerJob,
      logLinesPerJob,
      loadBefore,
      loadAfter: loadavg()[0],
    };
  } finally {
    await daemon.stop();
    receiver.close();
  }
}

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

async function main(): Promise<void> {
  // One set of secrets for every round: on PostgreSQL the rounds share the database.
  const store = storeEnv(mkdtempSync(join(tmpdir(), 'bench-jobs-store-')));
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round = await runRound(store);
    rounds.push(round);
    process.stderr.write(
      `round ${i + 1}/${ROUNDS}: ${round.jobsPerSecond.toFixed(1)} jobs/s (submitted in ${round.submitSeconds.toFixed(2)} s, ` +
        `last callback ${round.tailSeconds.toFixed(2)} s later; daemon CPU ${round.cpuMsPerJob.toFixed(2)} ms/job, ` +
        `${round.logLinesPerJob.toFixed(2)} log lines/job), ${round.syncPerSecond.toFixed(1)} simulations/s, ` +
        `load ${round.loadBefore.toFixed(2)} → ${round.loadAfter.toFixed(2)}\n`,
    );
  }
  const storeName = BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  const loads = rounds.flatMap((round) => [round.loadBefore, round.loadAfter]);
  writeSection(BENCH_DATABASE_URL ? 'jobs-postgresql' : 'jobs', [
    '',
    `### ${storeName}: ${JOBS} jobs × 10,000 runs × 5 variables, ${ROUNDS} rounds`,
    '',
    `Measured ${machineLine()}, load average (1 min) ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} ` +
      `over the rounds; the built daemon as a process (ENGINE_POOL_SIZE default, SERVICE_JOB_CONCURRENCY=${CONCURRENCY}), ` +
      `${CONCURRENCY} concurrent clients for both paths, a fresh daemon per round${BENCH_DATABASE_URL ? ' (one database for all rounds)' : ''}.`,
    '',
    '```sh',
    `${BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL=postgres://…/EMPTY_DB ' : ''}JOBS=${JOBS} CONCURRENCY=${CONCURRENCY} ROUNDS=${ROUNDS} bash bench/jobs/run.sh`,
    '```',
    '',
    '| path | per second, median (min–max) |',
    '|---|---|',
    `| POST /v1/simulate, ${JOBS} simulations | ${spread(
      rounds.map((r) => r.syncPerSecond),
      1,
    )} |`,
    `| POST /v1/jobs + signed job.completed callback, ${JOBS} jobs | **${spread(
      rounds.map((r) => r.jobsPerSecond),
      1,
    )}** |`,
    '',
    `Jobs are timed from the first submission to the last callback received. Submitting the ${JOBS} jobs took ` +
      `${spread(
        rounds.map((r) => r.submitSeconds),
        2,
      )} s, the last callback arriving ` +
      `${spread(
        rounds.map((r) => r.tailSeconds),
        2,
      )} s after the last submission was answered. The daemon's CPU time over that phase (every thread, from ` +
      `/proc; the engine's processes not counted) was ${spread(
        rounds.map((r) => r.cpuMsPerJob),
        2,
      )} ms a job, and it logged ${spread(
        rounds.map((r) => r.logLinesPerJob),
        2,
      )} lines a job. In every round each ` +
      `job's callback arrived exactly once (${JOBS} distinct job_id, ${JOBS} distinct webhook-id, ${JOBS} calls).`,
  ]);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
