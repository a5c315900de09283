import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../src/common/errors';
import { EngineReply, EngineRequest, EngineResult } from '../../src/modules/engine/engine.types';
import {
  CrashLoopBreaker,
  EnginePool,
  LossReason,
  PoolObserver,
  PoolOptions,
  PoolUnavailableError,
} from '../../src/modules/engine/engine-pool';
import {
  WorkerHandle,
  WorkerLauncher,
  WorkerLostError,
  WorkerStartError,
  WorkerTimeoutError,
} from '../../src/modules/engine/engine-worker';

type Behaviour = (worker: FakeWorker, request: EngineRequest) => Promise<EngineReply>;

const answer = (worker: FakeWorker): EngineReply => ({
  type: 'result',
  result: { engine_version: 'fake', compute_ms: worker.pid } as unknown as EngineResult,
});

/** A worker whose answers the test scripts; dying rejects its pending run like a closed socket would. */
class FakeWorker implements WorkerHandle {
  readonly version = 'fake-1';
  isAlive = true;
  killed = false;
  retired = false;
  runs = 0;
  pingFails = false;
  private readonly exitListeners: (() => void)[] = [];
  private pending?: (error: Error) => void;

  constructor(
    readonly pid: number,
    private readonly behaviour: Behaviour,
  ) {}

  run(request: EngineRequest): Promise<EngineReply> {
    if (!this.isAlive) return Promise.reject(new WorkerLostError('dead'));
    this.runs++;
    return new Promise((resolve, reject) => {
      this.pending = reject;
      this.behaviour(this, request).then(resolve, reject);
    });
  }

  ping(): Promise<void> {
    return this.pingFails ? Promise.reject(new Error('no pong')) : Promise.resolve();
  }

  kill(): void {
    this.killed = true;
    this.die();
  }

  retire(): void {
    this.retired = true;
    this.die();
  }

  die(): void {
    if (!this.isAlive) return;
    this.isAlive = false;
    this.pending?.(new WorkerLostError('the process exited'));
    for (const listener of this.exitListeners.splice(0)) listener();
  }

  onExit(listener: () => void): void {
    if (this.isAlive) this.exitListeners.push(listener);
    else listener();
  }
}

class FakeLauncher implements WorkerLauncher {
  readonly workers: FakeWorker[] = [];
  failAfter = Infinity;
  private nextPid = 1000;

  constructor(public behaviour: Behaviour = async (w) => answer(w)) {}

  async launch(): Promise<WorkerHandle> {
    if (this.workers.length >= this.failAfter)
      throw new WorkerStartError('exited', 'the fake refuses to start');
    const worker = new FakeWorker(this.nextPid++, (w, r) => this.behaviour(w, r));
    this.workers.push(worker);
    return worker;
  }
}

class RecordingObserver implements PoolObserver {
  readonly lost: LossReason[] = [];
  readonly availability: boolean[] = [];
  timeouts = 0;
  crashLoops = 0;
  workerReady(): void {}
  workerLost(reason: LossReason): void {
    this.lost.push(reason);
  }
  busyChanged(): void {}
  queueWaited(): void {}
  computed(): void {}
  timedOut(): void {
    this.timeouts++;
  }
  crashLoop(): void {
    this.crashLoops++;
  }
  availabilityChanged(serving: boolean): void {
    this.availability.push(serving);
  }
}

const options = (overrides: Partial<PoolOptions> = {}): PoolOptions => ({
  size: 2,
  acquireTimeoutMs: 200,
  computeTimeoutMs: 1000,
  pingTimeoutMs: 100,
  recycleAfter: 0,
  healthIntervalMs: 0,
  crashLoop: { maxFailures: 5, windowMs: 60_000, coolDownMs: 60_000 },
  ...overrides,
});

async function startPool(launcher: FakeLauncher, overrides: Partial<PoolOptions> = {}) {
  const observer = new RecordingObserver();
  const pool = new EnginePool(launcher, async () => undefined, options(overrides), observer);
  await pool.start();
  return { pool, observer };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await sleep(5);
  expect(condition()).toBe(true);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    if (error instanceof PoolUnavailableError) return 'pool_unavailable';
    throw error;
  }
  return 'ok';
}

describe('EnginePool', () => {
  const pools: EnginePool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.stop()));
  });
  const track = <T extends { pool: EnginePool }>(started: T): T => {
    pools.push(started.pool);
    return started;
  };

  it('starts every slot and spreads requests over idle workers', async () => {
    const launcher = new FakeLauncher();
    const { pool } = track(await startPool(launcher));
    expect(pool.status()).toMatchObject({
      size: 2,
      live: 2,
      busy: 0,
      queued: 0,
      restarts: 0,
      version: 'fake-1',
    });
    expect(pool.isServing).toBe(true);
    await pool.run({});
    await pool.run({});
    expect(launcher.workers.map((w) => w.runs)).toEqual([1, 1]);
  });

  it('adopts already-probed workers before launching the rest', async () => {
    const launcher = new FakeLauncher();
    const adopted = (await launcher.launch()) as FakeWorker;
    const pool = new EnginePool(
      launcher,
      async () => undefined,
      options({ size: 3 }),
      new RecordingObserver(),
    );
    pools.push(pool);
    await pool.start([adopted]);
    expect(launcher.workers).toHaveLength(3);
    expect(pool.status().workers[0].pid).toBe(adopted.pid);
  });

  it('queues a request until a worker is free, then answers it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const launcher = new FakeLauncher(async (w) => {
      await gate;
      return answer(w);
    });
    const { pool } = track(await startPool(launcher, { size: 1, acquireTimeoutMs: 5000 }));
    const first = pool.run({});
    const second = pool.run({});
    await until(() => pool.status().queued === 1);
    expect(pool.status().busy).toBe(1);
    release();
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    expect(pool.status()).toMatchObject({ busy: 0, queued: 0 });
  });

  it('answers engine_busy when no worker frees up within the acquire timeout', async () => {
    const launcher = new FakeLauncher(() => new Promise(() => undefined));
    const { pool } = track(await startPool(launcher, { size: 1, acquireTimeoutMs: 50 }));
    void pool.run({}).catch(() => undefined);
    expect(await codeOf(pool.run({}))).toBe('engine_busy');
    expect(pool.status().queued).toBe(0);
  });

  it('replaces a worker that dies mid-request and retries the request once on another worker', async () => {
    const launcher = new FakeLauncher(async (w) => {
      if (w.pid === 1000) {
        setImmediate(() => w.die());
        return new Promise<EngineReply>(() => undefined);
      }
      return answer(w);
    });
    const { pool, observer } = track(await startPool(launcher));
    const reply = await pool.run({});
    expect(reply.type === 'result' && reply.result.compute_ms).not.toBe(1000);
    expect(observer.lost).toEqual(['died']);
    await until(() => pool.status().live === 2);
    expect(pool.status().restarts).toBe(1);
    expect(launcher.workers).toHaveLength(3);
  });

  it('gives up with internal_error when the retry dies too', async () => {
    const launcher = new FakeLauncher(async (w) => {
      setImmediate(() => w.die());
      return new Promise<EngineReply>(() => undefined);
    });
    const { pool, observer } = track(await startPool(launcher));
    expect(await codeOf(pool.run({}))).toBe('internal_error');
    expect(observer.lost).toEqual(['died', 'died']);
  });

  it('kills a worker that overruns its budget, answers engine_timeout and starts a replacement', async () => {
    const launcher = new FakeLauncher(async (w) => {
      if (w.pid === 1000) throw new WorkerTimeoutError(10);
      return answer(w);
    });
    const { pool, observer } = track(await startPool(launcher, { size: 1 }));
    expect(await codeOf(pool.run({}))).toBe('engine_timeout');
    expect(launcher.workers[0].killed).toBe(true);
    expect(observer.timeouts).toBe(1);
    await until(() => pool.status().live === 1);
    expect(await codeOf(pool.run({}))).toBe('ok');
  });

  it('recycles a worker after its request budget (plus at most 10 % jitter)', async () => {
    const launcher = new FakeLauncher();
    const { pool, observer } = track(await startPool(launcher, { size: 1, recycleAfter: 10 }));
    for (let i = 0; i < 11; i++) {
      await until(() => pool.status().live === 1);
      await pool.run({});
    }
    expect(launcher.workers[0].retired).toBe(true);
    expect(launcher.workers[0].runs).toBeGreaterThanOrEqual(10);
    expect(launcher.workers[0].runs).toBeLessThanOrEqual(11);
    expect(observer.lost).toEqual(['recycled']);
    expect(pool.status().restarts).toBe(0);
  });

  it('replaces an idle worker whose process exits', async () => {
    const launcher = new FakeLauncher();
    const { pool } = track(await startPool(launcher, { size: 1 }));
    launcher.workers[0].die();
    await until(() => pool.status().live === 1 && launcher.workers.length === 2);
    expect(await codeOf(pool.run({}))).toBe('ok');
  });

  it('replaces a worker that fails its health ping and records the check time', async () => {
    const launcher = new FakeLauncher();
    const { pool, observer } = track(await startPool(launcher, { size: 1, healthIntervalMs: 20 }));
    const before = pool.status().lastHealthCheck!.getTime();
    launcher.workers[0].pingFails = true;
    await until(() => observer.lost.includes('unhealthy'));
    await until(() => pool.status().lastHealthCheck!.getTime() > before);
    await until(() => pool.status().live === 1);
    expect(launcher.workers[0].killed).toBe(true);
  });

  it('opens the crash-loop breaker and stops serving when replacements keep failing', async () => {
    const launcher = new FakeLauncher(async (w) => {
      setImmediate(() => w.die());
      return new Promise<EngineReply>(() => undefined);
    });
    launcher.failAfter = 1;
    const { pool, observer } = track(
      await startPool(launcher, {
        size: 1,
        acquireTimeoutMs: 5000,
        crashLoop: { maxFailures: 3, windowMs: 60_000, coolDownMs: 60_000 },
      }),
    );
    expect(await codeOf(pool.run({}))).toBe('pool_unavailable');
    await until(() => observer.crashLoops === 1);
    expect(pool.isServing).toBe(false);
    expect(observer.availability).toEqual([true, false]);
    expect(await codeOf(pool.run({}))).toBe('pool_unavailable');
  });

  it('rejects queued requests when it stops', async () => {
    const launcher = new FakeLauncher(() => new Promise(() => undefined));
    const { pool } = track(await startPool(launcher, { size: 1, acquireTimeoutMs: 5000 }));
    void pool.run({}).catch(() => undefined);
    const queued = pool.run({});
    await until(() => pool.status().queued === 1);
    await pool.stop();
    expect(await codeOf(queued)).toBe('pool_unavailable');
    expect(launcher.workers[0].retired).toBe(true);
  });
});

describe('CrashLoopBreaker', () => {
  it('opens at the threshold and closes when failures leave the window', () => {
    let now = 0;
    const breaker = new CrashLoopBreaker({ maxFailures: 3, windowMs: 1000, coolDownMs: 500 }, () => now);
    expect(breaker.record()).toBe(false);
    expect(breaker.record()).toBe(false);
    expect(breaker.record()).toBe(true);
    expect(breaker.isOpen()).toBe(true);
    expect(breaker.record()).toBe(false);
    now = 2000;
    expect(breaker.isOpen()).toBe(false);
  });
});

describe('EnginePool fair share', () => {
  const pools: EnginePool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.stop()));
  });

  /** Workers hold each request until the test lets it go; `served` lists whose requests reached a worker. */
  async function heldPool(size: number) {
    const served: string[] = [];
    const held: (() => void)[] = [];
    const launcher = new FakeLauncher(
      (w, request) =>
        new Promise((resolve) => {
          served.push(String((request as { who?: string }).who));
          held.push(() => resolve(answer(w)));
        }),
    );
    const { pool } = await startPool(launcher, { size, acquireTimeoutMs: 5000 });
    pools.push(pool);
    const run = (who: string, orgId: string, kind: 'interactive' | 'scheduled') =>
      pool.run({ who }, { orgId, kind });
    const releaseOne = async () => {
      held.shift()?.();
      await sleep(5);
    };
    return { pool, served, held, run, releaseOne };
  }

  it('keeps one of two workers free of scheduled work, and serves waiting interactive requests first', async () => {
    const { served, run, releaseOne, pool } = await heldPool(2);
    const flood = Array.from({ length: 5 }, (_, i) => run(`s${i}`, 'org_a', 'scheduled'));
    await sleep(5);
    expect(served).toEqual(['s0']);
    expect(pool.status().queued).toBe(4);

    const interactive = run('i0', 'org_b', 'interactive');
    await sleep(5);
    expect(served).toEqual(['s0', 'i0']);

    const waitingInteractive = run('i1', 'org_a', 'interactive');
    await releaseOne();
    expect(served).toEqual(['s0', 'i0', 'i1']);
    for (let i = 0; i < 7; i++) await releaseOne();
    await Promise.all([...flood, interactive, waitingInteractive]);
    expect(served.slice(3)).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('serves waiting organizations in turn, not in arrival order', async () => {
    const { served, run, releaseOne } = await heldPool(1);
    const first = run('a0', 'org_a', 'interactive');
    await sleep(5);
    const queued = [
      ...Array.from({ length: 3 }, (_, i) => run(`a${i + 1}`, 'org_a', 'interactive')),
      run('b0', 'org_b', 'interactive'),
      run('c0', 'org_c', 'interactive'),
    ];
    for (let i = 0; i < 6; i++) await releaseOne();
    await Promise.all([first, ...queued]);
    expect(served).toEqual(['a0', 'b0', 'c0', 'a1', 'a2', 'a3']);
  });
});
