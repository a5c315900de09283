import { GroupCommit } from '../../src/common/group-commit';

describe('GroupCommit', () => {
  it('writes what arrives during a batch as the next batch, and answers each caller with its own result', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const firstHeld = new Promise<void>((r) => (release = r));
    const commit = new GroupCommit<number, string>(async (items) => {
      batches.push([...items]);
      if (batches.length === 1) await firstHeld;
      return items.map((item) => `done ${item}`);
    });
    const first = commit.submit(1);
    await Promise.resolve();
    await Promise.resolve();
    const later = [commit.submit(2), commit.submit(3), commit.submit(4)];
    release();
    expect(await first).toBe('done 1');
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('puts callers of the same tick in one batch', async () => {
    const batches: number[][] = [];
    const commit = new GroupCommit<number, number>((items) => {
      batches.push([...items]);
      return Promise.resolve(items.map((item) => item * 10));
    });
    expect(await Promise.all([1, 2, 3].map((i) => commit.submit(i)))).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('writes a failed batch again item by item, so only the bad item fails', async () => {
    const batches: number[][] = [];
    const commit = new GroupCommit<number, number>((items) => {
      batches.push([...items]);
      if (items.includes(2)) return Promise.reject(new Error('constraint failed'));
      return Promise.resolve(items.map((item) => item + 100));
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => commit.submit(i)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 101 },
      { status: 'rejected', reason: new Error('constraint failed') },
      { status: 'fulfilled', value: 103 },
    ]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('caps a batch at its size limit', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>((items) => {
      sizes.push(items.length);
      return Promise.resolve([...items]);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((i) => commit.submit(i)));
    expect(sizes).toEqual([2, 2, 1]);
  });
});
