/** Counts events per key over a sliding window; in memory, so limits are per daemon process. */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Milliseconds until the key may try again; 0 when it is under the limit. */
  retryAfterMs(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit) return 0;
    return recent[recent.length - this.limit] + this.windowMs - now;
  }

  /** Counts one event; returns how many the key has in the window, this one included. */
  hit(key: string, now = Date.now()): number {
    if (this.hits.size >= this.maxKeys) this.prune(now);
    const recent = this.recent(key, now);
    recent.push(now);
    this.hits.set(key, recent);
    return recent.length;
  }

  /** Forgets one event counted at `at` (an attempt that turned out not to count). */
  release(key: string, at: number): void {
    const all = this.hits.get(key);
    const index = all?.lastIndexOf(at) ?? -1;
    if (index < 0) return;
    all!.splice(index, 1);
    if (all!.length === 0) this.hits.delete(key);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  resetWhere(matches: (key: string) => boolean): void {
    for (const key of [...this.hits.keys()]) if (matches(key)) this.hits.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const all = this.hits.get(key);
    if (!all) return [];
    const recent = all.filter((t) => t > now - this.windowMs);
    if (recent.length === 0) this.hits.delete(key);
    else if (recent.length !== all.length) this.hits.set(key, recent);
    return recent;
  }

  private prune(now: number): void {
    for (const key of [...this.hits.keys()]) this.recent(key, now);
    if (this.hits.size >= this.maxKeys) this.hits.clear();
  }
}
