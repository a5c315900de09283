import { LruCache } from '../../src/common/lru-cache';
import { SlidingWindowLimiter } from '../../src/common/sliding-window-limiter';

describe('sliding window limiter', () => {
  it('blocks after the limit and frees up as old hits leave the window', () => {
    const limiter = new SlidingWindowLimiter(3, 1000);
    for (const t of [0, 100, 200]) {
      expect(limiter.retryAfterMs('k', t)).toBe(0);
      limiter.hit('k', t);
    }
    expect(limiter.retryAfterMs('k', 300)).toBe(700);
    expect(limiter.retryAfterMs('other', 300)).toBe(0);
    expect(limiter.retryAfterMs('k', 1000)).toBe(0);
    limiter.hit('k', 1000);
    expect(limiter.retryAfterMs('k', 1050)).toBe(50);
    limiter.reset('k');
    expect(limiter.retryAfterMs('k', 1050)).toBe(0);
  });
});

describe('LRU cache with TTL', () => {
  it('expires entries, evicts the least recently used and deletes by predicate', () => {
    let now = 0;
    const cache = new LruCache<string, number>(2, 100, () => now);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    now = 150;
    expect(cache.get('a')).toBeUndefined();
    cache.set('d', 4);
    cache.deleteWhere((v) => v === 4);
    expect(cache.get('d')).toBeUndefined();
  });

  it('tells what it drops by itself (room, expiry), not what it is told to delete, and lists its values', () => {
    let now = 0;
    const dropped: number[] = [];
    const cache = new LruCache<string, number>(
      2,
      100,
      () => now,
      (value) => dropped.push(value),
    );
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(dropped).toEqual([1]);
    expect(cache.values()).toEqual([2, 3]);
    cache.delete('b');
    cache.clear();
    expect(dropped).toEqual([1]);
    cache.set('d', 4);
    now = 150;
    expect(cache.get('d')).toBeUndefined();
    expect(dropped).toEqual([1, 4]);
  });
});
