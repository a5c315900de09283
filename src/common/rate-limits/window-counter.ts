import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/** An event `take` counted: the key's count with it, and when the window it was counted in ends. */
export interface Counted {
  readonly counted: true;
  readonly count: number;
  readonly windowEndsAt: number;
}

/** What `take` answers: counted (and may be given back), or refused as the key is at its limit. */
export type Take = Counted | { readonly counted: false; readonly retryAfterMs: number };

/**
 * Counts events per key over fixed windows (rate-limiter-flexible): a key's window starts at its first event and
 * ends `duration` later. A key is a list of parts (an account, a client address); the store sees only its digest.
 */
export class WindowCounter {
  constructor(private readonly limiter: RateLimiterMemory | RateLimiterPostgres) {}

  /** Counts one event only while the key is under its limit, as one atomic step in the store. */
  async take(key: readonly string[]): Promise<Take> {
    const stored = storedKey(key);
    try {
      const counted = await this.limiter.consume(stored);
      return {
        counted: true,
        count: counted.consumedPoints,
        windowEndsAt: Date.now() + counted.msBeforeNext,
      };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      await this.giveBack(stored);
      return { counted: false, retryAfterMs: refusal.msBeforeNext };
    }
  }

  /** Gives back an event `take` counted, unless its window has ended (the key then counts afresh). */
  async release(key: readonly string[], taken: Counted): Promise<void> {
    if (Date.now() < taken.windowEndsAt) await this.giveBack(storedKey(key));
  }

  /** Counts one event whatever the key's count; resolves with the count, this one included. */
  async hit(key: readonly string[]): Promise<number> {
    return (await this.limiter.penalty(storedKey(key))).consumedPoints;
  }

  async count(key: readonly string[]): Promise<number> {
    return (await this.limiter.get(storedKey(key)))?.consumedPoints ?? 0;
  }

  /** Milliseconds until the key may try again; 0 while it is under its limit. */
  async retryAfterMs(key: readonly string[]): Promise<number> {
    const state = await this.limiter.get(storedKey(key));
    return state && state.consumedPoints >= this.limiter.points ? Math.max(0, state.msBeforeNext) : 0;
  }

  async reset(key: readonly string[]): Promise<void> {
    await this.limiter.delete(storedKey(key));
  }

  /** A reward that reaches zero (or below, if the window turned meanwhile) removes the key: no empty rows linger. */
  private async giveBack(stored: string): Promise<void> {
    if ((await this.limiter.reward(stored)).consumedPoints <= 0) await this.limiter.delete(stored);
  }
}

/** Client addresses and account e-mails are not kept in the store, and every key fits its column. */
function storedKey(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
