import { BackgroundLoop } from '../../src/common/background-loop';

/** A task whose runs are counted and held open until the test releases them. */
function gatedTask() {
  const releases: Array<() => void> = [];
  let runs = 0;
  return {
    task: () => {
      runs += 1;
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    runs: () => runs,
    releaseNext: async () => {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    },
  };
}

const HOUR_MS = 3_600_000;

describe('BackgroundLoop', () => {
  it('runs the task at start', async () => {
    const gate = gatedTask();
    const loop = new BackgroundLoop(gate.task, HOUR_MS, () => undefined);
    loop.start();
    expect(gate.runs()).toBe(1);
    await gate.releaseNext();
    await loop.stop();
  });

  it('coalesces wakes during a run into exactly one more run', async () => {
    const gate = gatedTask();
    const loop = new BackgroundLoop(gate.task, HOUR_MS, () => undefined);
    loop.start();
    loop.wake();
    loop.wake();
    loop.wake();
    expect(gate.runs()).toBe(1);
    await gate.releaseNext();
    expect(gate.runs()).toBe(2);
    await gate.releaseNext();
    expect(gate.runs()).toBe(2);
    loop.wake();
    expect(gate.runs()).toBe(3);
    await gate.releaseNext();
    await loop.stop();
  });

  it('stop waits for the run in flight and nothing runs afterwards', async () => {
    const gate = gatedTask();
    const loop = new BackgroundLoop(gate.task, HOUR_MS, () => undefined);
    loop.start();
    loop.wake();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    expect(loop.isStopped).toBe(true);
    await gate.releaseNext();
    await stopping;
    expect(stopped).toBe(true);
    loop.wake();
    loop.start();
    expect(gate.runs()).toBe(1);
  });

  it('reports a failed run and keeps going', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const loop = new BackgroundLoop(
      () => {
        runs += 1;
        return runs === 1 ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
      HOUR_MS,
      (error) => errors.push(error),
    );
    loop.start();
    await new Promise((r) => setImmediate(r));
    loop.wake();
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk full']);
    expect(runs).toBe(2);
  });

  it('runs again on its interval', async () => {
    jest.useFakeTimers();
    try {
      let runs = 0;
      const loop = new BackgroundLoop(
        () => Promise.resolve(void (runs += 1)),
        1000,
        () => undefined,
      );
      loop.start();
      await jest.advanceTimersByTimeAsync(3000);
      expect(runs).toBe(4);
      await loop.stop();
      await jest.advanceTimersByTimeAsync(3000);
      expect(runs).toBe(4);
    } finally {
      jest.useRealTimers();
    }
  });

  describe('wakeSoon', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
    afterEach(() => jest.useRealTimers());

    it('wakes once after the delay however many calls arrive meanwhile', async () => {
      const gate = gatedTask();
      const loop = new BackgroundLoop(gate.task, HOUR_MS, () => undefined);
      loop.start();
      await gate.releaseNext();
      loop.wakeSoon(20);
      loop.wakeSoon(20);
      jest.advanceTimersByTime(19);
      loop.wakeSoon(20);
      expect(gate.runs()).toBe(1);
      jest.advanceTimersByTime(1);
      expect(gate.runs()).toBe(2);
      jest.advanceTimersByTime(100);
      expect(gate.runs()).toBe(2);
      await gate.releaseNext();
      await loop.stop();
    });

    it('forgets a pending wake when stopped', async () => {
      const gate = gatedTask();
      const loop = new BackgroundLoop(gate.task, HOUR_MS, () => undefined);
      loop.start();
      await gate.releaseNext();
      loop.wakeSoon(20);
      await loop.stop();
      jest.advanceTimersByTime(100);
      expect(gate.runs()).toBe(1);
    });
  });

  it('backs off while the database is unreachable, runs at once on a wake, and resets on success', async () => {
    jest.useFakeTimers();
    try {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      });
      let failing = true;
      let runs = 0;
      const loop = new BackgroundLoop(
        () => {
          runs += 1;
          return failing ? Promise.reject(refused) : Promise.resolve();
        },
        1000,
        () => undefined,
      );
      loop.start();
      // Runs at 0, 1, 3, 7 and 15 s: each wait doubled, on the 1 s ticks; then every 10 s at most (25 s).
      await jest.advanceTimersByTimeAsync(20_000);
      expect(runs).toBe(5);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(runs).toBe(6);

      failing = false;
      const beforeWake = runs;
      loop.wake();
      await jest.advanceTimersByTimeAsync(0);
      expect(runs).toBe(beforeWake + 1);
      // Back to every interval.
      await jest.advanceTimersByTimeAsync(3000);
      expect(runs).toBe(beforeWake + 4);
      await loop.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps its interval when a run fails for another reason', async () => {
    jest.useFakeTimers();
    try {
      let runs = 0;
      const loop = new BackgroundLoop(
        () => {
          runs += 1;
          return Promise.reject(new Error('disk full'));
        },
        1000,
        () => undefined,
      );
      loop.start();
      await jest.advanceTimersByTimeAsync(5000);
      expect(runs).toBe(6);
      await loop.stop();
    } finally {
      jest.useRealTimers();
    }
  });
});
