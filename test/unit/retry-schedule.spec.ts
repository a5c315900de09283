import { nextDelayMs, retryAfterMs } from '../../src/modules/webhook-outbox/retry-schedule';

describe('webhook retry schedule', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const middle = () => 0.5;

  it('doubles from the base delay', () => {
    expect([1, 2, 3, 4, 5].map((n) => nextDelayMs(n, 5000, null, now, middle))).toEqual([
      5000, 10000, 20000, 40000, 80000,
    ]);
  });

  it('jitters by at most 20 % either way', () => {
    expect(nextDelayMs(1, 1000, null, now, () => 0)).toBe(800);
    expect(nextDelayMs(1, 1000, null, now, () => 1)).toBe(1200);
  });

  it('caps at one hour', () => {
    expect(nextDelayMs(30, 5000, null, now, middle)).toBe(3_600_000);
  });

  it('honours a longer Retry-After in seconds or as a date, never a shorter one', () => {
    expect(nextDelayMs(1, 1000, '120', now, middle)).toBe(120_000);
    expect(nextDelayMs(1, 1000, new Date(now + 30_000).toUTCString(), now, middle)).toBe(30_000);
    expect(nextDelayMs(3, 10_000, '1', now, middle)).toBe(40_000);
  });

  it('ignores malformed Retry-After values', () => {
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs('-5', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBe(0);
  });
});
