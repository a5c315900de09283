import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, StoreLocation, StoreOrm, transactionOf } from '../../src/common/database';
import { registerEntities } from '../../src/common/database/entity-registry';
import { JobSchema } from '../../src/modules/jobs/job.entity';
import { TriggerFireSchema, TriggerSchema } from '../../src/modules/triggers/trigger.entity';
import { NewFire, NewTrigger, TriggerRepository } from '../../src/modules/triggers/trigger.repository';
import { JobsRepository } from '../../src/modules/jobs/jobs.repository';
import {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
} from '../../src/modules/webhook-outbox/webhook-delivery.entity';
import { WebhookDeliveryRepository } from '../../src/modules/webhook-outbox/webhook-delivery.repository';
import { DatasetRepository } from '../../src/modules/datasets/dataset.repository';
import { createTestDatabase, TestDatabase } from '../support/postgres';

registerEntities([JobSchema, WebhookDeliverySchema, WebhookAttemptSchema, TriggerSchema, TriggerFireSchema]);

const T0 = new Date('2026-11-26T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const lease = (owner: string, untilSeconds: number) => ({ owner, until: at(untilSeconds) });

/** Two replicas: two connection pools on one store. */
interface Replicas {
  readonly a: StoreOrm;
  readonly b: StoreOrm;
  close(): Promise<void>;
}

/** SQLite has one daemon per file, and so one writer: its claimers share the daemon's one connection. */
async function sqliteReplicas(): Promise<Replicas> {
  const dir = mkdtempSync(join(tmpdir(), 'ds-leases-'));
  const orm = await openDatabase(join(dir, 'service.sqlite'));
  return {
    a: orm,
    b: orm,
    async close() {
      await orm.close(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresReplicas(): Promise<Replicas> {
  const db: TestDatabase = await createTestDatabase();
  const location: StoreLocation = { kind: 'postgresql', url: db.url };
  const [a, b] = await Promise.all([openDatabase(location), openDatabase(location)]);
  return {
    a,
    b,
    async close() {
      await a.close(true);
      await b.close(true);
      await db.drop();
    },
  };
}

describe.each([
  ['SQLite', sqliteReplicas],
  ['PostgreSQL', postgresReplicas],
])('work leases on %s', (_store, open) => {
  let replicas: Replicas;
  beforeEach(async () => {
    replicas = await open();
  });
  afterEach(() => replicas.close());

  describe('jobs', () => {
    const seed = async (count: number) => {
      const jobs = new JobsRepository(replicas.a.em);
      const ids: string[] = [];
      for (let i = 0; i < count; i++)
        ids.push((await jobs.create('org_1', { i }, undefined, at(-60 + i))).id);
      return ids;
    };

    it('are claimed in batches by replicas claiming at once, each job by exactly one', async () => {
      const ids = await seed(40);
      const a = new JobsRepository(replicas.a.em);
      const b = new JobsRepository(replicas.b.em);
      const claimedBy = { a: [] as string[], b: [] as string[] };
      const drain = async (repo: JobsRepository, owner: 'a' | 'b') => {
        for (;;) {
          const batch = await repo.claim(T0, 3, lease(owner, 30));
          if (batch.length === 0) return;
          expect(batch.length).toBeLessThanOrEqual(3);
          for (const job of batch) {
            expect(job).toMatchObject({ status: 'running', leaseOwner: owner, attempts: 1 });
            claimedBy[owner].push(job.id);
          }
        }
      };
      await Promise.all([drain(a, 'a'), drain(b, 'b'), drain(a, 'a'), drain(b, 'b')]);
      expect([...claimedBy.a, ...claimedBy.b].sort()).toEqual([...ids].sort());
    });

    it('stay with a replica whose lease is live, and go to another once it runs out', async () => {
      const [id] = await seed(1);
      const a = new JobsRepository(replicas.a.em);
      const b = new JobsRepository(replicas.b.em);
      expect((await a.claim(T0, 5, lease('a', 30))).map((job) => job.id)).toEqual([id]);
      expect(await b.claim(at(29), 5, lease('b', 59))).toEqual([]);

      expect(await a.renewLeases(lease('a', 60))).toBe(1);
      expect(await b.claim(at(45), 5, lease('b', 75))).toEqual([]);

      const [resumed] = await b.claim(at(61), 5, lease('b', 91));
      expect(resumed).toMatchObject({ id, leaseOwner: 'b', attempts: 2 });
      expect(await a.renewLeases(lease('a', 90))).toBe(0);
      const finish = (repo: JobsRepository, owner: string) =>
        repo.finishAll(
          owner,
          [{ id, outcome: { status: 'succeeded', runId: `run_${owner}`, result: { owner } }, now: at(70) }],
          () => Promise.resolve(),
        );
      expect(await finish(a, 'a')).toEqual([false]);
      expect(await finish(b, 'b')).toEqual([true]);
      expect(await a.findForOrg('org_1', id)).toMatchObject({
        status: 'succeeded',
        result: '{"owner":"b"}',
        runId: 'run_b',
        error: null,
        finishedAt: at(70),
        leaseUntil: null,
      });
    });

    it('are finished a batch at a time, each with its own outcome, only while their lease holds', async () => {
      const ids = await seed(3);
      const a = new JobsRepository(replicas.a.em);
      expect(await a.claim(T0, 5, lease('a', 30))).toHaveLength(3);
      expect(await a.cancel('org_1', ids[2], at(5))).toBe(true);
      const written: string[] = [];
      const recorded = await a.finishAll(
        'a',
        [
          { id: ids[0], outcome: { status: 'succeeded', runId: 'run_0', result: { n: 0 } }, now: at(10) },
          { id: ids[1], outcome: { status: 'failed', error: { code: 'engine_busy' } }, now: at(11) },
          { id: ids[2], outcome: { status: 'succeeded', runId: 'run_2', result: { n: 2 } }, now: at(12) },
        ],
        (_em, finished) => {
          written.push(...finished.map((finish) => finish.id));
          return Promise.resolve();
        },
      );
      expect(recorded).toEqual([true, true, false]);
      expect(written).toEqual([ids[0], ids[1]]);
      expect(await a.findForOrg('org_1', ids[0])).toMatchObject({
        status: 'succeeded',
        runId: 'run_0',
        result: '{"n":0}',
        error: null,
        finishedAt: at(10),
        leaseUntil: null,
      });
      expect(await a.findForOrg('org_1', ids[1])).toMatchObject({
        status: 'failed',
        runId: null,
        result: null,
        error: '{"code":"engine_busy"}',
        finishedAt: at(11),
      });
      expect(await a.findForOrg('org_1', ids[2])).toMatchObject({ status: 'cancelled', finishedAt: at(5) });
    });
  });

  describe('outbox deliveries', () => {
    const seed = async (count: number) => {
      const repo = new WebhookDeliveryRepository(replicas.a.em);
      for (let i = 0; i < count; i++) {
        await replicas.a.em
          .fork()
          .transactional((em) =>
            repo.insertAll(
              transactionOf(em),
              [{ orgId: 'org_1', event: 'job.completed', url: 'http://h/', body: { i } }],
              at(-60 + i),
            ),
          );
      }
    };
    const attempt = { attemptedAt: at(1), statusCode: 200, durationMs: 5 };
    const delivered = { status: 'delivered' as const, nextAttemptAt: null };

    it('are claimed in batches by replicas claiming at once, each delivery by exactly one', async () => {
      await seed(30);
      const a = new WebhookDeliveryRepository(replicas.a.em);
      const b = new WebhookDeliveryRepository(replicas.b.em);
      const claimed: string[] = [];
      const drain = async (repo: WebhookDeliveryRepository, owner: string) => {
        for (;;) {
          const batch = await repo.claimDue(T0, 4, lease(owner, 30));
          if (batch.length === 0) return;
          claimed.push(...batch.map((delivery) => delivery.id));
        }
      };
      await Promise.all([drain(a, 'a'), drain(b, 'b'), drain(a, 'a'), drain(b, 'b')]);
      expect(claimed).toHaveLength(30);
      expect(new Set(claimed).size).toBe(30);
    });

    it('are claimed organizations in turn, no destination or organization past its cap in flight', async () => {
      const repo = new WebhookDeliveryRepository(replicas.a.em);
      const queue = async (orgId: string, url: string, count: number, fromSecond: number) => {
        for (let i = 0; i < count; i++) {
          await replicas.a.em
            .fork()
            .transactional((em) =>
              repo.insertAll(
                transactionOf(em),
                [{ orgId, event: 'trigger.fired', url, body: { i } }],
                at(fromSecond + i),
              ),
            );
        }
      };
      await queue('org_flood', 'http://slow/', 10, -60);
      await queue('org_quiet', 'http://quiet/', 2, -30);

      const turns = await repo.claimDue(T0, 3, lease('a', 30));
      expect(turns.map((d) => d.orgId).sort()).toEqual(['org_flood', 'org_flood', 'org_quiet']);

      const capped = await repo.claimDue(T0, 16, lease('a', 30), { perDestination: 4, perOrg: 12 });
      expect(capped.map((d) => `${d.orgId} ${d.url}`).sort()).toEqual([
        'org_flood http://slow/',
        'org_flood http://slow/',
        'org_quiet http://quiet/',
      ]);
      expect(await repo.claimDue(T0, 16, lease('a', 30), { perDestination: 4, perOrg: 12 })).toEqual([]);
      expect(await repo.claimDue(T0, 16, lease('a', 30), { perDestination: 8, perOrg: 5 })).toHaveLength(1);
    });

    it('are recorded only by the replica holding the lease', async () => {
      await seed(1);
      const a = new WebhookDeliveryRepository(replicas.a.em);
      const b = new WebhookDeliveryRepository(replicas.b.em);
      const [held] = await a.claimDue(T0, 4, lease('a', 30));
      expect(await b.claimDue(at(10), 4, lease('b', 40))).toEqual([]);
      expect(await a.renewLeases(lease('a', 40))).toBe(1);
      expect(await b.claimDue(at(35), 4, lease('b', 65))).toEqual([]);

      const [takenOver] = await b.claimDue(at(41), 4, lease('b', 71));
      expect(takenOver.id).toBe(held.id);
      expect(await a.recordAttempt(held.id, 'a', attempt, delivered)).toBe(false);
      expect(await b.recordAttempt(held.id, 'b', attempt, delivered)).toBe(true);
      const attempts = await a.attemptsOf([held.id]);
      expect(attempts.get(held.id)).toHaveLength(1);
      expect(await a.findForOrg('org_1', held.id)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    });

    it('record a batch of attempts at once, each delivery its own next state', async () => {
      await seed(2);
      const a = new WebhookDeliveryRepository(replicas.a.em);
      const [first, second] = await a.claimDue(T0, 4, lease('a', 30));
      const failed = { attemptedAt: at(2), statusCode: 500, durationMs: 7.5 };
      expect(
        await Promise.all([
          a.recordAttempt(first.id, 'a', attempt, delivered),
          a.recordAttempt(second.id, 'a', failed, { status: 'pending', nextAttemptAt: at(20) }),
        ]),
      ).toEqual([true, true]);
      expect(await a.findForOrg('org_1', first.id)).toMatchObject({
        status: 'delivered',
        attemptCount: 1,
        deliveredAt: at(1),
        nextAttemptAt: null,
        leaseUntil: null,
      });
      expect(await a.findForOrg('org_1', second.id)).toMatchObject({
        status: 'pending',
        attemptCount: 1,
        deliveredAt: null,
        nextAttemptAt: at(20),
        leaseUntil: null,
      });
      const attempts = await a.attemptsOf([first.id, second.id]);
      expect(attempts.get(second.id)).toMatchObject([
        { attemptedAt: at(2), statusCode: 500, durationMs: 7.5, error: null },
      ]);
    });
  });

  describe('dataset file leases', () => {
    it('run once at a time per version: a replica finding another converting skips, and converts once it is done', async () => {
      const a = new DatasetRepository(replicas.a.em);
      const b = new DatasetRepository(replicas.b.em);
      const builds: string[] = [];
      const build = (who: string) => () => {
        builds.push(who);
        return Promise.resolve();
      };
      if (replicas.a === replicas.b) {
        // SQLite: one daemon per file, whose builds run one at a time anyway.
        expect(await a.whileHoldingFileLease('ds_1', build('a'))).toBe(true);
        expect(builds).toEqual(['a']);
        return;
      }
      let finish!: () => void;
      const building = new Promise<void>((resolve) => (finish = resolve));
      let started!: () => void;
      const holding = new Promise<void>((resolve) => (started = resolve));
      const first = a.whileHoldingFileLease('ds_1', async () => {
        builds.push('a');
        started();
        await building;
      });
      await holding;
      expect(await b.whileHoldingFileLease('ds_1', build('b'))).toBe(false);
      // Another version is not held up by it.
      expect(await b.whileHoldingFileLease('ds_2', build('b2'))).toBe(true);
      finish();
      expect(await first).toBe(true);
      expect(await b.whileHoldingFileLease('ds_1', build('b'))).toBe(true);
      expect(builds).toEqual(['a', 'b2', 'b']);
    });
  });

  describe('trigger evaluations', () => {
    const trigger = (i: number): NewTrigger => ({
      orgId: 'org_1',
      name: `t${i}`,
      enabled: true,
      condition: '{}',
      intervalS: 60,
      catchUpWindowS: 0,
      cooldownS: 0,
      keepFiringS: 0,
      simulation: '{}',
      autoExecute: false,
      executionMaxAgeS: 900,
      plans: '{}',
      state: 'inactive',
      nextEvaluationAt: at(-60 + i),
      consecutiveErrors: 0,
      skippedSlots: 0,
      generation: 0,
    });
    const seed = async (count: number) => {
      const repo = new TriggerRepository(replicas.a.em);
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push((await repo.create(trigger(i), at(-120))).id);
      return ids;
    };
    const inactive = { changes: { state: 'inactive' as const, nextEvaluationAt: at(120) } };

    it('are claimed in batches by replicas claiming at once, each trigger by exactly one', async () => {
      const ids = await seed(30);
      const a = new TriggerRepository(replicas.a.em);
      const b = new TriggerRepository(replicas.b.em);
      const claimed: string[] = [];
      const drain = async (repo: TriggerRepository, owner: string) => {
        for (;;) {
          const batch = await repo.claimDue(T0, 4, lease(owner, 30));
          if (batch.length === 0) return;
          expect(batch.length).toBeLessThanOrEqual(4);
          for (const held of batch) {
            expect(held).toMatchObject({ leaseOwner: owner, leaseUntil: at(30) });
            claimed.push(held.id);
          }
        }
      };
      await Promise.all([drain(a, 'a'), drain(b, 'b'), drain(a, 'a'), drain(b, 'b')]);
      expect([...claimed].sort()).toEqual([...ids].sort());
    });

    it('stay with a replica that renews its lease, go to another once it runs out, and are recorded by it', async () => {
      const [id] = await seed(1);
      const a = new TriggerRepository(replicas.a.em);
      const b = new TriggerRepository(replicas.b.em);
      const [held] = await a.claimDue(T0, 5, lease('a', 30));
      expect(held.id).toBe(id);
      expect(await b.claimDue(at(29), 5, lease('b', 59))).toEqual([]);

      expect(await a.renewLeases(lease('a', 60))).toBe(1);
      expect(await b.claimDue(at(45), 5, lease('b', 75))).toEqual([]);

      const [takenOver] = await b.claimDue(at(61), 5, lease('b', 91));
      expect(takenOver).toMatchObject({ id, leaseOwner: 'b', leaseUntil: at(91) });
      expect(await a.renewLeases(lease('a', 90))).toBe(0);
      expect(await a.recordEvaluation(id, 'a', held.generation, inactive)).toBe('stale');
      expect(await b.recordEvaluation(id, 'b', takenOver.generation, inactive)).toBe('recorded');
      expect(await a.findForOrg('org_1', id)).toMatchObject({
        leaseOwner: null,
        leaseUntil: null,
        nextEvaluationAt: at(120),
      });
      expect(await b.renewLeases(lease('b', 120))).toBe(0);
    });

    it('recorded at once (one transaction on SQLite) keep each its own outcome', async () => {
      const ids = await seed(4);
      const repo = new TriggerRepository(replicas.a.em);
      const fire = (triggerId: string, slot: Date): NewFire => ({
        triggerId,
        orgId: 'org_1',
        slot: slot.toISOString(),
        firedAt: T0,
        conditionMet: true,
        currentValue: 5,
      });
      const firing = (triggerId: string, slot: Date) => ({
        changes: { state: 'firing' as const, nextEvaluationAt: at(60) },
        fire: fire(triggerId, slot),
      });
      expect(await repo.claimDue(T0, 4, lease('a', 30))).toHaveLength(4);
      // The last trigger's slot fired already, and the trigger is due again (a record lost after its fire).
      const again = { changes: { nextEvaluationAt: at(-1) }, fire: fire(ids[3], at(-60)) };
      expect(await repo.recordEvaluation(ids[3], 'a', 0, again)).toBe('recorded');
      expect((await repo.claimDue(T0, 4, lease('a', 30))).map((t) => t.id)).toEqual([ids[3]]);

      const outcomes = await Promise.all([
        repo.recordEvaluation(ids[0], 'a', 0, {
          changes: { state: 'pending', pendingSince: T0, nextEvaluationAt: at(60) },
        }),
        repo.recordEvaluation(ids[1], 'a', 1, inactive),
        repo.recordEvaluation(ids[2], 'a', 0, firing(ids[2], T0)),
        repo.recordEvaluation(ids[3], 'a', 0, firing(ids[3], at(-60))),
      ]);
      expect(outcomes).toEqual(['recorded', 'stale', 'recorded', 'slot_already_fired']);

      const [pending, redefined, fired, refired] = await Promise.all(
        ids.map((id) => repo.findForOrg('org_1', id)),
      );
      const free = { leaseOwner: null, leaseUntil: null };
      expect(pending).toMatchObject({
        ...free,
        state: 'pending',
        pendingSince: T0,
        nextEvaluationAt: at(60),
      });
      expect(redefined).toMatchObject({ ...free, state: 'inactive', nextEvaluationAt: at(-59) });
      expect(fired).toMatchObject({ ...free, state: 'firing', lastFiredAt: T0 });
      expect(fired?.lastFireId).toMatch(/^fire_/);
      expect(refired).toMatchObject({ ...free, state: 'firing', nextEvaluationAt: at(60) });
      const em = replicas.a.em.fork();
      const slotsOf = async (triggerId: string) =>
        (await em.find(TriggerFireSchema, { triggerId })).map((f) => f.slot);
      expect(await slotsOf(ids[2])).toEqual([T0.toISOString()]);
      expect(await slotsOf(ids[3])).toEqual([at(-60).toISOString()]);
      expect(await slotsOf(ids[0])).toEqual([]);
    });
  });
});
