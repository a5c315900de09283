import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { queryTrigger } from '../factories/triggers';
import { Appliance } from '../support/appliance';
import { waitForLogEvent } from '../support/daemon-process';
import { makeTempDir } from '../support/test-app';
import { waitUntil } from '../support/wait';

/** Debian's libfaketime (package faketime): the daemon's wall clock moves, its monotonic clock does not. */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const INTERVAL_S = 10;
const HOUR_MS = 3600_000;

jest.setTimeout(180_000);

interface TriggerView {
  last_evaluated_at: string | null;
  next_evaluation_at: string | null;
}

/** The value of one sample of the Prometheus text, 0 when absent. */
function sample(metrics: string, line: string): number {
  const found = metrics.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

(existsSync(LIBFAKETIME) ? describe : describe.skip)('the wall clock stepping under the daemon', () => {
  const dataDir = makeTempDir('ds-clock-steps-');
  const offsetFile = join(dataDir, '..', `${dataDir.split('/').pop()}.faketime`);
  let appliance: Appliance;

  beforeAll(async () => {
    writeFileSync(offsetFile, '+0');
    appliance = new Appliance(dataDir, {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: offsetFile,
      FAKETIME_CACHE_DURATION: '1',
      DONT_FAKE_MONOTONIC: '1',
      ENGINE_POOL_SIZE: '1',
    });
    await appliance.start();
    await appliance.signup('clock-steps@example.test');
  });
  afterAll(async () => {
    await appliance.kill();
  });

  it('evaluates a trigger at once after a step back, and one slot only after a step forward', async () => {
    // 500 < 100 never holds: every slot is an evaluation without a fire.
    const datasetId = await appliance.stockDataset('sku,stock\nsku0,500');
    const created = await appliance.ok(
      'POST',
      '/v1/triggers',
      queryTrigger(datasetId, { schedule: { interval_s: INTERVAL_S } }),
    );
    const view = async (): Promise<TriggerView> =>
      (await appliance.ok<TriggerView>('GET', `/v1/triggers/${created.body.id as string}`)).body;
    const first = await waitUntil(
      async () => (await view()).last_evaluated_at ?? undefined,
      30_000,
      'a first evaluation',
    );

    // Two hours back: the next slot, stored as a wall-clock time, now lies two hours ahead.
    writeFileSync(offsetFile, '-2h');
    const afterBack = await waitUntil(
      async () => {
        const seen = await view();
        const at = seen.last_evaluated_at;
        return at !== null && Date.parse(at) < Date.parse(first) - HOUR_MS ? seen : undefined;
      },
      40_000,
      'an evaluation after the clock stepped back two hours',
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}: ${JSON.stringify(await view())}\n${appliance.daemon!.output().slice(-3000)}`,
      );
    });
    expect(
      Date.parse(afterBack.next_evaluation_at!) - Date.parse(afterBack.last_evaluated_at!),
    ).toBeLessThanOrEqual(INTERVAL_S * 1000);
    await waitForLogEvent(appliance.daemon!, 'trigger_slots_pulled_back', 5_000);

    // Three hours forward (an hour past the real time): 1,080 slots passed; one is evaluated, the rest skipped.
    const metricsBefore = (await appliance.call('GET', '/metrics')).text;
    writeFileSync(offsetFile, '+1h');
    await waitUntil(
      async () => {
        const at = (await view()).last_evaluated_at;
        return at !== null && Date.parse(at) > Date.now() + HOUR_MS / 2;
      },
      40_000,
      'an evaluation after the clock stepped forward',
    );
    const metricsAfter = (await appliance.call('GET', '/metrics')).text;
    const evaluations = (text: string) =>
      ['inactive', 'pending', 'firing', 'recovering', 'no_data', 'error'].reduce(
        (sum, state) => sum + sample(text, `trigger_evaluations_total{state="${state}"}`),
        0,
      );
    expect(evaluations(metricsAfter) - evaluations(metricsBefore)).toBeLessThanOrEqual(2);
    const missed = (text: string) => sample(text, 'trigger_slots_skipped_total{reason="missed"}');
    expect(missed(metricsAfter) - missed(metricsBefore)).toBeGreaterThanOrEqual(1000);
  });
});
