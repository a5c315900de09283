/**
 * A small LRU map whose entries also expire after `ttlMs` (`Infinity`: never); Map keeps insertion order, so the first
 * key is oldest. `onDrop` hears of each value the cache drops by itself (to make room, or expired), for values that
 * hold something to release.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly onDrop: (value: V) => void = () => undefined,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.onDrop(entry.value);
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.entries().next();
      if (!oldest.done) {
        this.entries.delete(oldest.value[0]);
        this.onDrop(oldest.value[1].value);
      }
    }
  }

  values(): V[] {
    return [...this.entries.values()].map((entry) => entry.value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches; used where the caller knows an id but not the cache key. */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
