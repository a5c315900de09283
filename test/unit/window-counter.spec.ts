import { EntityManager } from '@mikro-orm/knex';
import { loadConfig } from '../../src/common/config';
import { WindowCounters } from '../../src/common/rate-limits';
import { fakeDateOnly } from '../support/fake-date';

const T0 = 1_000_000;
const SECOND = 1000;

/** One appliance on SQLite: the counters live in this process. */
function counter(limit: number, windowS: number) {
  const counters = new WindowCounters(
    loadConfig({ NODE_ENV: 'test' }),
    undefined as unknown as EntityManager,
  );
  return counters.create('test', limit, windowS);
}

describe('window counter, in memory', () => {
  beforeEach(() => fakeDateOnly(T0));
  afterEach(() => jest.useRealTimers());

  it('counts to the limit, refuses until the window begun by the first event ends, then counts afresh', async () => {
    const c = counter(3, 60);
    const windowEndsAt = T0 + 60 * SECOND;
    expect(await c.take(['k'])).toEqual({ counted: true, count: 1, windowEndsAt });
    jest.setSystemTime(T0 + 10 * SECOND);
    expect(await c.take(['k'])).toEqual({ counted: true, count: 2, windowEndsAt });
    expect(await c.take(['k'])).toEqual({ counted: true, count: 3, windowEndsAt });
    jest.setSystemTime(T0 + 45 * SECOND);
    expect(await c.take(['k'])).toEqual({ counted: false, retryAfterMs: 15 * SECOND });
    expect(await c.retryAfterMs(['k'])).toBe(15 * SECOND);
    expect(await c.count(['k'])).toBe(3);
    expect(await c.take(['k', 'other'])).toEqual({
      counted: true,
      count: 1,
      windowEndsAt: T0 + 105 * SECOND,
    });
    jest.setSystemTime(windowEndsAt);
    expect(await c.retryAfterMs(['k'])).toBe(0);
    expect(await c.take(['k'])).toEqual({
      counted: true,
      count: 1,
      windowEndsAt: windowEndsAt + 60 * SECOND,
    });
  });

  it('gives back a released event within its window, and nothing once its window has ended', async () => {
    const c = counter(2, 60);
    const first = await c.take(['k']);
    const second = await c.take(['k']);
    if (!first.counted || !second.counted) throw new Error('the first two events are counted');
    await c.release(['k'], first);
    expect(await c.count(['k'])).toBe(1);
    jest.setSystemTime(T0 + 60 * SECOND);
    expect(await c.take(['k'])).toMatchObject({ counted: true, count: 1 });
    await c.release(['k'], second);
    expect(await c.count(['k'])).toBe(1);
  });

  it('counts a hit past the limit; a reset forgets the key', async () => {
    const c = counter(2, 60);
    expect([await c.hit(['k']), await c.hit(['k']), await c.hit(['k'])]).toEqual([1, 2, 3]);
    expect(await c.take(['k'])).toEqual({ counted: false, retryAfterMs: 60 * SECOND });
    expect(await c.count(['k'])).toBe(3);
    await c.reset(['k']);
    expect(await c.count(['k'])).toBe(0);
    expect(await c.retryAfterMs(['k'])).toBe(0);
  });

  it('never ends the window of a counter made with a window of 0', async () => {
    const c = counter(1, 0);
    await c.hit(['k']);
    await c.hit(['k']);
    jest.setSystemTime(T0 + 365 * 24 * 3600 * SECOND);
    expect(await c.count(['k'])).toBe(2);
  });
});
