import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { queryTrigger, pushTrigger, TRIGGER_SIMULATION } from '../../test/factories/trigger-requests';
import { REORDER_SIMULATION } from '../../test/factories/simulations';
import { HttpResult } from '../../test/support/http-result';
import { requestFrom } from '../../test/support/source-address';
import { machineLine, quantile, signupKey, startDaemon, writeSection } from '../support/daemon';
import { spread } from '../support/stats';

/**
 * Issue 36's absolute goal, which the reliability suite's tenant-fairness test only holds relatively: while one
 * organization floods the appliance with logins for unknown accounts from 20 addresses (password hashing), fires
 * whose webhooks go to a receiver that never answers (the outbox) and 8 scheduled 1M-run triggers (the engine pool),
 * another organization's requests stay under 100 ms p99. The quiet tenant reads `GET /v1/connectors?limit=1` (the
 * request the issue timed) and runs a 1,000-run `POST /v1/simulate`; each is timed unloaded first, then in rounds
 * under the flood. Also reports when the quiet tenant's trigger.fired reached its receiver.
 *
 * Usage: bench/tenant-fairness/run.sh [--rounds R] [--samples N] [--daemon-root DIR] [--section NAME]
 * `--daemon-root` runs another checkout's built daemon (its `dist/main.js`), e.g. a commit before a fix; `--section`
 * names the docs/BENCHMARKS.md section written (default `tenant-fairness`).
 */

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
}

/** Every client request as from a chosen loopback address (logins come from 20 of them). */
function call(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; from?: string } = {},
): Promise<HttpResult<any>> {
  return requestFrom(url, options.from ?? '127.0.0.1', method, path, options);
}

interface Receiver {
  readonly url: string;
  readonly paths: string[];
  readonly hanging: ServerResponse[];
  close(): Promise<void>;
}

async function receiver(answers: boolean): Promise<Receiver> {
  const paths: string[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      paths.push(req.url ?? '');
      if (answers) res.end('ok');
      else hanging.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    hanging,
    close: () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Sample {
  readonly reads: number[];
  readonly simulates: number[];
  readonly failed: number;
}

async function main(): Promise<void> {
  const rounds = Number(option('rounds') ?? 5);
  const samples = Number(option('samples') ?? 100);
  const daemonRoot = option('daemon-root');
  const section = option('section') ?? 'tenant-fairness';
  const fast = await receiver(true);
  const slow = await receiver(false);
  const daemon = await startDaemon(
    {
      SERVICE_SIGNUP_ENABLED: 'true',
      SERVICE_SIGNUP_RATE_LIMIT: '0',
      SERVICE_EGRESS_ALLOW: [fast.url, slow.url].map((u) => new URL(u).host).join(','),
      SERVICE_WEBHOOK_CALLBACK_TIMEOUT_MS: '60000',
      ENGINE_POOL_SIZE: '2',
    },
    { root: daemonRoot === undefined ? undefined : resolve(daemonRoot) },
  );
  let flooding = false;
  const loginStatuses: number[] = [];
  let logins: Promise<unknown> = Promise.resolve();
  try {
    const quietKey = await signupKey(daemon.url, 'quiet@example.test');
    const floodKey = await signupKey(daemon.url, 'flood@example.test');
    const ok = async (key: string, method: string, path: string, body: unknown, status = 201) => {
      const res = await call(daemon.url, method, path, { token: key, body });
      if (res.status !== status)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const quietTrigger = (
      await ok(quietKey, 'POST', '/v1/triggers', pushTrigger({ webhook_url: `${fast.url}/quiet` }))
    ).id;
    const floodTrigger = (
      await ok(floodKey, 'POST', '/v1/triggers', pushTrigger({ webhook_url: `${slow.url}/flood` }))
    ).id;
    const connector = await ok(floodKey, 'POST', '/v1/connectors', {
      name: 'stock',
      connector_type: 'file',
      config: { file_type: 'csv', content: 'sku,stock\nsku0,80' },
    });
    const dataset = await ok(
      floodKey,
      'POST',
      '/v1/data/connect',
      { connection_type: 'file', dataset_name: 'stock', connection_id: connector.id, visibility: 'private' },
      200,
    );

    const quietRequests = async (): Promise<Sample> => {
      const reads: number[] = [];
      const simulates: number[] = [];
      let failed = 0;
      for (let i = 0; i < samples; i++) {
        const simulate = i % 8 === 7;
        const started = performance.now();
        const res = simulate
          ? await call(daemon.url, 'POST', '/v1/simulate', { token: quietKey, body: REORDER_SIMULATION })
          : await call(daemon.url, 'GET', '/v1/connectors?limit=1', { token: quietKey });
        (simulate ? simulates : reads).push(performance.now() - started);
        if (res.status !== 200) failed++;
      }
      return { reads, simulates, failed };
    };

    await quietRequests();
    const loadBefore = loadavg()[0];
    const unloaded: Sample[] = [];
    for (let round = 0; round < rounds; round++) unloaded.push(await quietRequests());

    flooding = true;
    const loginLoop = async (loop: number) => {
      for (let round = 0; flooding; round++) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            call(daemon.url, 'POST', '/auth/login', {
              from: `127.0.8.${i + 1}`,
              body: { email: `nobody-${loop}-${round}-${i}@example.test`, password: 'not the password!!' },
            }).catch(() => ({ status: 0, body: undefined })),
          ),
        );
        loginStatuses.push(...batch.map((r) => r.status));
      }
    };
    logins = Promise.all(Array.from({ length: 5 }, (_, loop) => loginLoop(loop)));
    for (let i = 0; i < 8; i++) {
      await ok(
        floodKey,
        'POST',
        '/v1/triggers',
        queryTrigger(dataset.dataset_id, {
          name: `heavy ${i}`,
          webhook_url: `${slow.url}/flood`,
          schedule: { interval_s: 10 },
          simulation: { ...TRIGGER_SIMULATION, runs: 1_000_000 },
        }),
      );
    }
    await Promise.all(
      Array.from({ length: 40 }, () =>
        call(daemon.url, 'POST', `/v1/triggers/${floodTrigger}/fire`, {
          token: floodKey,
          body: { current_value: 42 },
        }),
      ),
    );
    await until(() => slow.hanging.length >= 4, 60_000, 'the flood holding the slow receiver');

    const firedAt = performance.now();
    await ok(quietKey, 'POST', `/v1/triggers/${quietTrigger}/fire`, { current_value: 42 }, 200);
    let quietFiredMs: number | undefined;
    void until(() => fast.paths.includes('/quiet'), 600_000, 'trigger.fired').then(
      () => (quietFiredMs = performance.now() - firedAt),
      () => undefined,
    );
    const loaded: Sample[] = [];
    for (let round = 0; round < rounds; round++) loaded.push(await quietRequests());
    const loadAfter = loadavg()[0];
    flooding = false;
    await logins;

    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const row = (name: string, sample: Sample[], pick: (s: Sample) => number[]) =>
      `| ${name} | ${spread(
        sample.map((s) => quantile(pick(s), 0.5)),
        1,
        ' ms',
      )} | ` +
      `${spread(
        sample.map((s) => quantile(pick(s), 0.99)),
        1,
        ' ms',
      )} | ` +
      `${ms(Math.max(...sample.flatMap(pick)))} | ${sample.reduce((n, s) => n + s.failed, 0)} |`;
    const refused = loginStatuses.filter((s) => s === 429).length;
    writeSection(section, [
      '',
      `Measured ${machineLine()}; ${daemonRoot === undefined ? 'this checkout' : `the daemon built in ${daemonRoot}`}, ` +
        `SQLite, ENGINE_POOL_SIZE=2. ${rounds} rounds of ${samples} requests of the quiet organization ` +
        `(every 8th a 1,000-run simulate), one after another; median over rounds (min–max of the rounds).`,
      '',
      '| quiet organization | p50 | p99 | max | non-200 |',
      '|---|---|---|---|---|',
      row('`GET /v1/connectors?limit=1`, unloaded', unloaded, (s) => s.reads),
      row('`GET /v1/connectors?limit=1`, under the flood', loaded, (s) => s.reads),
      row('`POST /v1/simulate` 1,000 runs, unloaded', unloaded, (s) => s.simulates),
      row('`POST /v1/simulate` 1,000 runs, under the flood', loaded, (s) => s.simulates),
      '',
      `Flood: ${loginStatuses.length} logins for unknown accounts from 20 addresses (${refused} answered 429), ` +
        `8 scheduled 1M-run triggers, 40 fires whose webhooks hang (${slow.hanging.length} held). ` +
        `The quiet organization's trigger.fired arrived ` +
        `${quietFiredMs === undefined ? 'not within the measurement' : `${(quietFiredMs / 1000).toFixed(1)} s after its fire`}. ` +
        `Load average (1 min): ${loadBefore.toFixed(2)} before the unloaded rounds, ${loadAfter.toFixed(2)} after the flood.`,
      '',
      `Command: \`bench/tenant-fairness/run.sh${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\``,
      '',
    ]);
  } finally {
    flooding = false;
    await logins.catch(() => undefined);
    await daemon.stop();
    await Promise.all([fast.close(), slow.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
