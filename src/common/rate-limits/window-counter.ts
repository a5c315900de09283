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

  resetPrefix(prefix: readonly string[]): Promise<void> {
    const start = joined(prefix);
    this.limiter.resetWhere((key) => key === start || key.startsWith(`${start}\n`));
    return Promise.resolve();
  }
}

function joined(parts: readonly string[]): string {
  return parts.join('\n');
}
