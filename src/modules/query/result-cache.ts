import { Row } from '../datasets/datasets.types';

const MAX_CACHED_ROWS = 200_000;
const MAX_ENTRY_ROWS = 10_001;

/**
 * Results of recent queries, keyed by dataset version and the exact SQL and parameters. A dataset version is an
 * immutable file, so a cached result can never be stale; a deleted version's entries simply age out (its id is
 * never reused and a query on it is refused before the cache is consulted). Bounded by the rows it holds.
 */
export class ResultCache {
  private readonly entries = new Map<string, readonly Row[]>();
  private rows = 0;

  static key(datasetId: string, sql: string, params: readonly unknown[]): string {
    return `${datasetId}\u0000${sql}\u0000${JSON.stringify(params)}`;
  }

  get(key: string): readonly Row[] | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, rows: readonly Row[]): void {
    if (rows.length > MAX_ENTRY_ROWS || this.entries.has(key)) return;
    this.entries.set(key, rows);
    this.rows += Math.max(1, rows.length);
    for (const [oldest, value] of this.entries) {
      if (this.rows <= MAX_CACHED_ROWS) break;
      this.entries.delete(oldest);
      this.rows -= Math.max(1, value.length);
    }
  }
}
