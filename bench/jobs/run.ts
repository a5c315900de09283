/**
 * 1,000 async jobs of 10,000 runs, each with a job.completed callback to a loopback receiver, against the same
 * 1,000 simulations through POST /v1/simulate (same client concurrency), on the built daemon as a real process.
 * Checks that every callback arrived exactly once (by job_id and by webhook-id).
 *
 *   bash bench/jobs/run.sh          # JOBS=1000 CONCURRENCY=4; writes docs/BENCHMARKS.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/EMPTY_DB bash bench/jobs/run.sh   # the same on PostgreSQL
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { machineLine, signupKey, startDaemon, writeSection } from '../support/daemon';

const JOBS = Number(process.env.JOBS ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
/** An empty PostgreSQL database to run the daemon on instead of its SQLite file (docs/scale-out.md). */
const DATABASE_URL = process.env.BENCH_DATABASE_URL;

/** What SERVICE_DATABASE_URL requires beside it; fresh secrets, since the bench daemon is alone on its database. */
function storeEnv(): Record<string, string> {
  if (!DATABASE_URL) return {};
  return {
    SERVICE_DATABASE_URL: DATABASE_URL,
    SERVICE_JWT_SECRET: randomBytes(32).toString('hex'),
    SERVICE_API_KEY_PEPPER: randomBytes(32).toString('hex'),
    SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_KEYS_DIR: mkdtempSync('/tmp/bench-jobs-keys-'),
  };
}
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

async function main(): Promise<void> {
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
    ...storeEnv(),
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

    const jobsStarted = performance.now();
    await inParallel(JOBS, CONCURRENCY, async () => {
      await post(daemon.url, key, '/v1/jobs', { callback_url: `http://127.0.0.1:${port}/cb`, request: BODY });
    });
    const submittedSeconds = (performance.now() - jobsStarted) / 1000;
    await delivered;
    const jobsSeconds = (performance.now() - jobsStarted) / 1000;
    await new Promise((r) => setTimeout(r, 2000));

    const duplicates = [...byJob.values()].filter((n) => n !== 1).length;
    const calls = [...byJob.values()].reduce((a, b) => a + b, 0);
    if (byJob.size !== JOBS || duplicates !== 0 || webhookIds.size !== JOBS) {
      throw new Error(`callbacks: ${byJob.size} jobs, ${calls} calls, ${duplicates} duplicated`);
    }
    writeSection(DATABASE_URL ? 'jobs-postgresql' : 'jobs', [
      `## Async jobs with callbacks: ${JOBS} jobs × 10,000 runs × 5 variables${DATABASE_URL ? ' (PostgreSQL)' : ''}`,
      '',
      `Measured ${machineLine()}; the built daemon as a process (ENGINE_POOL_SIZE default, SERVICE_JOB_CONCURRENCY=${CONCURRENCY}), ` +
        `${CONCURRENCY} concurrent clients for both paths; jobs are timed from the first submission to the last callback received.`,
      '',
      '```sh',
      `${DATABASE_URL ? 'BENCH_DATABASE_URL=postgres://…/EMPTY_DB ' : ''}JOBS=${JOBS} CONCURRENCY=${CONCURRENCY} bash bench/jobs/run.sh`,
      '```',
      '',
      '| path | work | seconds | per second |',
      '|---|---|---|---|',
      `| POST /v1/simulate | ${JOBS} simulations | ${syncSeconds.toFixed(2)} | ${(JOBS / syncSeconds).toFixed(1)} |`,
      `| POST /v1/jobs + job.completed | ${JOBS} jobs, ${calls} callbacks (${byJob.size} distinct job_id, ${webhookIds.size} distinct webhook-id) | ${jobsSeconds.toFixed(2)} | ${(JOBS / jobsSeconds).toFixed(1)} |`,
      '',
      `Submitting the ${JOBS} jobs took ${submittedSeconds.toFixed(2)} s. Every callback arrived exactly once.`,
    ]);
  } finally {
    await daemon.stop();
    receiver.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
