import { BoundedWorkQueue, WorkQueueFullError } from '../../src/common/bounded-work-queue';

describe('BoundedWorkQueue', () => {
  it('runs at most its concurrency at once, in arrival order, and refuses beyond its queue', async () => {
    const queue = new BoundedWorkQueue(2, 3);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const task = (n: number) => () => {
      started.push(n);
      most = Math.max(most, ++running);
      return new Promise<number>((resolve) =>
        finish.push(() => {
          running -= 1;
          resolve(n);
        }),
      );
    };
    const accepted = [1, 2, 3, 4, 5].map((n) => queue.run(task(n)));
    await expect(queue.run(task(6))).rejects.toBeInstanceOf(WorkQueueFullError);
    while (finish.length > 0 || started.length < 5) {
      await new Promise((resolve) => setImmediate(resolve));
      finish.shift()?.();
    }
    expect(await Promise.all(accepted)).toEqual([1, 2, 3, 4, 5]);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(await queue.run(() => Promise.resolve('free again'))).toBe('free again');
  });

  it('frees the slot of a task that throws', async () => {
    const queue = new BoundedWorkQueue(1, 0);
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(() => Promise.resolve(7))).toBe(7);
  });
});
