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
