import { SlidingWindowLimiter } from '../sliding-window-limiter';

/**
 * Counts events per key over a sliding window, for limits that must hold across every replica of the appliance.
 * A key is a list of parts (an account, a client address), so that every key sharing its first parts can be reset.
 */
export interface WindowCounter {
  /** Milliseconds until the key may try again; 0 while it is under the limit. */
  retryAfterMs(key: readonly string[], now?: number): Promise<number>;
  /** Counts one event; resolves with how many the key has in the window, this one included. */
  hit(key: readonly string[], now?: number): Promise<number>;
  /**
   * Counts one event only while the key is under its limit, deciding and counting as one step so that concurrent
   * callers cannot all pass: resolves with the key's count in the window, this one included, or null (nothing
   * counted) when the key is at its limit.
   */
  tryHit(key: readonly string[], now?: number): Promise<number | null>;
  /** Forgets one event of the key counted at `at`: a reserved attempt that turned out not to count. */
  release(key: readonly string[], at: number): Promise<void>;
  /** Forgets every event of each key that starts with these parts. */
  resetPrefix(prefix: readonly string[]): Promise<void>;
}

/** One appliance on SQLite: the counts live in this process, as nothing else serves its clients. */
export class MemoryWindowCounter implements WindowCounter {
  private readonly limiter: SlidingWindowLimiter;

  constructor(limit: number, windowMs: number) {
    this.limiter = new SlidingWindowLimiter(limit, windowMs);
  }

  retryAfterMs(key: readonly string[], now = Date.now()): Promise<number> {
    return Promise.resolve(this.limiter.retryAfterMs(joined(key), now));
  }

  hit(key: readonly string[], now = Date.now()): Promise<number> {
    return Promise.resolve(this.limiter.hit(joined(key), now));
  }

  tryHit(key: readonly string[], now = Date.now()): Promise<number | null> {
    const joinedKey = joined(key);
    if (this.limiter.retryAfterMs(joinedKey, now) > 0) return Promise.resolve(null);
    return Promise.resolve(this.limiter.hit(joinedKey, now));
  }

  release(key: readonly string[], at: number): Promise<void> {
    this.limiter.release(joined(key), at);
    return Promise.resolve();
  }

  resetPrefix(prefix: readonly string[]): Promise<void> {
    const start = joined(prefix);
    this.limiter.resetWhere((key) => key === start || key.startsWith(`${start}\n`));
    return Promise.resolve();
  }
}

function joined(parts: readonly string[]): string {
  return parts.join('\n');
}
