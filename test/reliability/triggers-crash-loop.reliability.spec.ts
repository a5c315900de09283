import { makeTempDir, HttpResult } from '../support/test-app';
import { Appliance, sleep } from '../support/appliance';
import { seededRandom } from '../support/seeded-random';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { waitUntil } from '../support/wait';
import { pushTrigger, queryTrigger } from '../factories/triggers';
import { IntegrityChecker } from './support/data-dir';

/**
 * Issue 14's "Done when": the built daemon SIGKILLed at random moments (seeded: the seed is printed, and
 * TRIGGER_CRASH_SEED replays a run) while scheduled triggers fire every slot and a client fires push triggers with
 * Idempotency-Keys, retrying each key after every kill until it gets an answer. Afterwards: at most one fire per
 * (trigger, slot), exactly one fire per key, every fire's trigger.fired received under one webhook-id (the
 * receivers dedupe by it), the pending and firing states carried across every restart, and every SQLite file in the
 * data dir passing `PRAGMA integrity_check` as each kill left it, before the next daemon opens it.
 */
const KILLS = Number(process.env.TRIGGER_CRASH_KILLS ?? 30);
const SEED = Number(process.env.TRIGGER_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** The product's shortest interval: every slot of the scheduled triggers fires (cooldown 1 s). */
const INTERVAL_S = 10;

interface FireRow {
  fire_id: string;
  slot: string;
  condition_met: boolean;
}

jest.setTimeout(30 * 60_000);

describe('triggers under a SIGKILL loop', () => {
  const seen = new Map<string, { webhookIds: Set<string>; receivers: Set<string> }>();
  let receivers: Receiver[];
  let appliance: Appliance;

  beforeAll(async () => {
    const record = (name: string) => (_req: any, res: any, body: Buffer) => {
      const webhookId = String(_req.headers['webhook-id']);
      const fireId = JSON.parse(body.toString()).fire_id as string;
      const entry = seen.get(fireId) ?? { webhookIds: new Set(), receivers: new Set() };
      entry.webhookIds.add(webhookId);
      entry.receivers.add(name);
      seen.set(fireId, entry);
      res.end('ok');
    };
    receivers = [await startReceiver(record('a')), await startReceiver(record('b'))];
    appliance = new Appliance(makeTempDir('ds-trigger-crash-'), {
      SERVICE_EGRESS_ALLOW: receivers.map((r) => `127.0.0.1:${r.port}`).join(','),
      SERVICE_WEBHOOK_RETRY_BASE_MS: '100',
      SERVICE_WORK_LEASE_S: '3',
      ENGINE_POOL_SIZE: '1',
    });
  });
  afterAll(async () => {
    await appliance.kill();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it(`ends with one fire per slot and per key, each delivered under one webhook-id, states kept (${KILLS} kills)`, async () => {
    console.log(`trigger crash loop: seed ${SEED}, ${KILLS} kills (TRIGGER_CRASH_SEED replays it)`);
    const random = seededRandom(SEED);
    await appliance.start();
    await appliance.signup('crash-loop@example.test');
    const datasetId = await appliance.stockDataset('sku,stock\nsku0,80');
    const hook = (i: number) => `${receivers[i % 2].url}/fired`;
    const create = async (body: Record<string, unknown>) =>
      (await appliance.ok('POST', '/v1/triggers', body)).body.id as string;
    const schedule = { interval_s: INTERVAL_S };
    const scheduled: string[] = [];
    for (let i = 0; i < 4; i++) {
      scheduled.push(
        await create(
          queryTrigger(datasetId, { name: `s${i}`, schedule, cooldown_s: 1, webhook_url: hook(i) }),
        ),
      );
    }
    const base = queryTrigger(datasetId).condition as Record<string, unknown>;
    const pendingId = await create(
      queryTrigger(datasetId, { name: 'pending', schedule, condition: { ...base, for_s: 86_400 } }),
    );
    const firingId = await create(
      queryTrigger(datasetId, { name: 'firing once', schedule, webhook_url: hook(1) }),
    );
    const pushed = [
      await create(pushTrigger({ name: 'push a', webhook_url: hook(0) })),
      await create(pushTrigger({ name: 'push b', webhook_url: hook(1) })),
    ];

    const pending = await waitUntil(async () => {
      const res = await appliance.call('GET', `/v1/triggers/${pendingId}`);
      return res.body.state === 'pending' ? res.body : undefined;
    }, 60_000);

    /** Idempotency-Key → the fire it answered; keys not answered yet are retried after the next restart. */
    const answers = new Map<string, string>();
    const unanswered: Array<{ key: string; trigger: string }> = [];
    let nextKey = 0;
    const fireWithKey = async (item: { key: string; trigger: string }): Promise<boolean> => {
      try {
        const res = await appliance.call(
          'POST',
          `/v1/triggers/${item.trigger}/fire`,
          { current_value: 10 },
          { 'idempotency-key': item.key },
        );
        if (res.status !== 200) return false; // 409 while the dead daemon's claim on the key has not lapsed
        const earlier = answers.get(item.key);
        if (earlier !== undefined) expect(res.body.fire_id).toBe(earlier);
        answers.set(item.key, res.body.fire_id);
        return true;
      } catch {
        return false; // the daemon died under the call
      }
    };
    /** Retries each unanswered key once in this daemon's life, then fires under new keys until it dies. */
    const client = async () => {
      for (const item of unanswered.splice(0)) {
        if (!(await fireWithKey(item))) unanswered.push(item);
      }
      while (appliance.isUp) {
        const item = { key: `k-${nextKey}`, trigger: pushed[nextKey++ % 2] };
        if (!(await fireWithKey(item))) {
          unanswered.push(item);
          await sleep(50);
        }
      }
    };

    const integrity = new IntegrityChecker();
    let firedOnce: string | undefined;
    for (let kill = 0; kill < KILLS; kill++) {
      const running = client();
      await sleep(300 + random() * 3700);
      await appliance.kill();
      await running;
      const when = `after kill ${kill + 1}`;
      expect({ when, problems: integrity.problems(appliance.dataDir) }).toEqual({ when, problems: [] });
      await appliance.start();
      // A restart resumes every trigger in the state it had.
      const p = await appliance.ok('GET', `/v1/triggers/${pendingId}`);
      expect(p.body).toMatchObject({ state: 'pending', pending_since: pending.pending_since });
      const f = await appliance.ok('GET', `/v1/triggers/${firingId}`);
      if (firedOnce) expect(f.body).toMatchObject({ state: 'firing', last_fire_id: firedOnce });
      else if (f.body.last_fire_id) firedOnce = f.body.last_fire_id;
    }

    // Every key answered: those whose claim the dead daemon held answer once it lapses.
    await waitUntil(
      async () => {
        for (const item of unanswered.splice(0)) if (!(await fireWithKey(item))) unanswered.push(item);
        return unanswered.length === 0;
      },
      5 * 60_000,
      'every Idempotency-Key answered',
    );

    const firesOf = async (trigger: string): Promise<FireRow[]> => {
      const all: FireRow[] = [];
      let cursor: string | null = null;
      do {
        const res: HttpResult<any> = await appliance.ok(
          'GET',
          `/v1/triggers/${trigger}/fires?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        all.push(...res.body.fires);
        cursor = res.body.next_cursor;
      } while (cursor);
      return all;
    };
    const allFires: FireRow[] = [];
    for (const trigger of scheduled) {
      const fires = await firesOf(trigger);
      expect(new Set(fires.map((f) => f.slot)).size).toBe(fires.length);
      allFires.push(...fires);
    }
    const manual = (await Promise.all(pushed.map(firesOf))).flat();
    expect(manual.map((f) => f.fire_id).sort()).toEqual([...answers.values()].sort());
    expect(new Set(answers.values()).size).toBe(answers.size);
    allFires.push(...manual);
    const once = await firesOf(firingId);
    expect(once).toHaveLength(1);
    allFires.push(...once);
    expect(await firesOf(pendingId)).toEqual([]);

    // Every fire's trigger.fired arrives, always under the same webhook-id; nothing arrives for a fire not recorded.
    await waitUntil(
      () => allFires.every((f) => seen.has(f.fire_id)),
      120_000,
      'trigger.fired of every fire received',
    );
    const fireIds = new Set(allFires.map((f) => f.fire_id));
    for (const [fireId, entry] of seen) {
      expect(fireIds.has(fireId)).toBe(true);
      expect(entry.webhookIds.size).toBe(1);
      expect(entry.receivers.size).toBe(1);
    }
    const webhookIds = [...seen.values()].map((e) => [...e.webhookIds][0]);
    expect(new Set(webhookIds).size).toBe(webhookIds.length);
    const scheduledFires = allFires.length - manual.length - once.length;
    console.log(
      `trigger crash loop: ${KILLS} kills, ${scheduledFires} scheduled fires, ${manual.length} keyed fire calls ` +
        `(${answers.size} keys), ${[...receivers].reduce((n, r) => n + r.requests.length, 0)} webhook requests, ` +
        `${integrity.checked} integrity checks`,
    );
    expect(scheduledFires).toBeGreaterThan(0);
    expect(answers.size).toBeGreaterThan(KILLS);
  });
});
