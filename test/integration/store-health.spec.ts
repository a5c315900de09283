import { join } from 'node:path';
import { Clock } from '../../src/common/clock';
import { AppStateRepository, StoreHealth, StoreOrm, WRITE_PROBE_TTL_MS } from '../../src/common/database';
import { createLogger } from '../../src/common/logging';
import { ImmutableDatabase, immutableFlagHolds } from '../support/immutable-files';
import { openRepositoryStore, RepositoryStore } from '../support/test-store';

class StoppedClock extends Clock {
  ms = Date.parse('2026-11-27T12:00:00.000Z');
  override now(): Date {
    return new Date(this.ms);
  }
}

function storeHealthOf(orm: StoreOrm, clock: Clock): StoreHealth {
  return new StoreHealth(orm, new AppStateRepository(orm.em), clock, createLogger('silent'));
}

describe('StoreHealth on the store of the run', () => {
  let store: RepositoryStore;

  beforeAll(async () => {
    store = await openRepositoryStore([], 'ds-store-health-');
  });
  afterAll(() => store.close());

  it('is ok while the store serves; only the SQLite file is written to tell', async () => {
    const clock = new StoppedClock();
    const health = storeHealthOf(store.orm, clock);
    expect(await health.status()).toBe('ok');
    const probe = await new AppStateRepository(store.orm.em).get('store_write_probe');
    expect(probe).toBe(process.env.TEST_STORE === 'postgresql' ? undefined : clock.now().toISOString());
  });
});

/** The file's writes refused by the immutable flag (docs/reliability.md#write-faults): SQLite answers SQLITE_IOERR. */
const canLock = process.env.TEST_STORE !== 'postgresql' && immutableFlagHolds();

(canLock ? describe : describe.skip)('StoreHealth on a SQLite file that stops taking writes', () => {
  let store: RepositoryStore;
  let orm: StoreOrm;
  let file: ImmutableDatabase;
  const probeWrites = async (): Promise<string | undefined> =>
    new AppStateRepository(orm.em).get('store_write_probe');

  beforeEach(async () => {
    store = await openRepositoryStore([], 'ds-store-health-');
    file = new ImmutableDatabase(join(store.dataDir, 'service.sqlite'));
    orm = store.orm;
  });
  afterEach(async () => {
    file.clear();
    await store.close();
  });

  it('writes at most once per WRITE_PROBE_TTL_MS while writes go through, and sees an idle file locked after it', async () => {
    const clock = new StoppedClock();
    const health = storeHealthOf(orm, clock);
    expect(await health.status()).toBe('ok');
    const firstProbe = await probeWrites();
    expect(firstProbe).toBe(clock.now().toISOString());

    clock.ms += WRITE_PROBE_TTL_MS - 1;
    file.set(true);
    // Nothing wrote since: the probe's answer stands, without a write.
    expect(await health.status()).toBe('ok');

    clock.ms += 1;
    expect(await health.status()).toBe('unavailable');
    // A failure does not stand: the next check writes again, and answers as soon as the file takes writes.
    expect(await health.status()).toBe('unavailable');
    file.set(false);
    expect(await health.status()).toBe('ok');
    expect(await probeWrites()).toBe(clock.now().toISOString());
  });

  it('turns unavailable at the first write the file refuses, whoever made it', async () => {
    const clock = new StoppedClock();
    const health = storeHealthOf(orm, clock);
    expect(await health.status()).toBe('ok');

    file.set(true);
    await expect(new AppStateRepository(orm.em).set('some_fact', 'x')).rejects.toMatchObject({
      code: 'SQLITE_IOERR',
    });
    expect(await health.status()).toBe('unavailable');
  });

  it('does not take a wall clock set back for a fresh write', async () => {
    const clock = new StoppedClock();
    const health = storeHealthOf(orm, clock);
    expect(await health.status()).toBe('ok');
    file.set(true);
    clock.ms -= 60_000;
    expect(await health.status()).toBe('unavailable');
  });
});
