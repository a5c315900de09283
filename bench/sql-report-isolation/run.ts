import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { call, machineLine, quantile, signupKey, startDaemon, writeSection } from '../support/daemon';
import { spread } from '../support/stats';

/**
 * Issue 37's isolation goal: `GET /v1/health` answers within 50 ms (p50) while runaway SQL reports hold every report
 * process. Four reports that never end (two organizations, two each, the per-organization cap) run while health is
 * asked `--samples` times one after another; then they are left to time out. Repeated `--rounds` times.
 *
 * Usage: bench/sql-report-isolation/run.sh [--rounds R] [--samples N]
 */

const RUNAWAY = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c';
const TIMEOUT_S = 8;

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

async function dataset(url: string, key: string): Promise<string> {
  const connector = await call(url, 'POST', '/v1/connectors', key, {
    name: 'csv',
    connector_type: 'file',
    config: { file_type: 'csv', content: 'id,units\n1,10\n2,20' },
  });
  const connected = await call(url, 'POST', '/v1/data/connect', key, {
    connection_type: 'file',
    dataset_name: 'sales',
    connection_id: connector.id,
    visibility: 'private',
  });
  return connected.dataset_id as string;
}

async function timedHealth(url: string, samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const asked = performance.now();
    const response = await fetch(`${url}/v1/health`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`health answered ${response.status}`);
    times.push(performance.now() - asked);
  }
  return times;
}

async function main(): Promise<void> {
  const rounds = option('rounds', 5);
  const samples = option('samples', 50);
  const daemon = await startDaemon({
    SERVICE_SIGNUP_ENABLED: 'true',
    SERVICE_SIGNUP_RATE_LIMIT: '0',
    SERVICE_SQL_REPORT_TIMEOUT_S: String(TIMEOUT_S),
  });
  try {
    const tenants = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const key = await signupKey(daemon.url);
        return { key, datasetId: await dataset(daemon.url, key), name };
      }),
    );
    const report = (key: string, datasetId: string, sql: string) =>
      fetch(`${daemon.url}/v1/query/sql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ dataset_id: datasetId, sql }),
      }).then(async (response) => ({ status: response.status, body: await response.text() }));
    await report(tenants[0].key, tenants[0].datasetId, 'select 1 as one');

    const idle = await timedHealth(daemon.url, samples);
    const p50s: number[] = [];
    const p99s: number[] = [];
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const runaways = tenants.flatMap((tenant) =>
        [0, 1].map(() => report(tenant.key, tenant.datasetId, RUNAWAY)),
      );
      await new Promise((r) => setTimeout(r, 1000));
      const times = await timedHealth(daemon.url, samples);
      p50s.push(quantile(times, 0.5));
      p99s.push(quantile(times, 0.99));
      loads.push(loadavg()[0]);
      const answers = await Promise.all(runaways);
      const timedOut = answers.filter((answer) => answer.status === 504).length;
      if (timedOut !== 4)
        throw new Error(`expected 4 timed-out reports, got ${answers.map((a) => a.status).join(',')}`);
    }
    writeSection('sql-report-isolation', [
      '',
      `Measured ${machineLine()}. \`GET /v1/health\` asked ${samples} times one after another while four SQL reports that never end (two organizations × their cap of two) hold the report processes, ${rounds} rounds; each round's reports then time out (${TIMEOUT_S} s budget) with 504.`,
      '',
      '| health | p50 | p99 |',
      '| --- | --- | --- |',
      `| idle | ${quantile(idle, 0.5).toFixed(2)} ms | ${quantile(idle, 0.99).toFixed(2)} ms |`,
      `| during four runaway reports | ${spread(p50s, 2, ' ms')} | ${spread(p99s, 2, ' ms')} |`,
      '',
      `Load average (1 min) during the rounds: ${spread(loads, 2)}.`,
      '',
      `Command: \`bash bench/sql-report-isolation/run.sh --rounds ${rounds} --samples ${samples}\``,
      '',
    ]);
  } finally {
    await daemon.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
