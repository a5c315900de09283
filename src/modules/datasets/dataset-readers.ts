import { ReadOnlyDatabase } from './readonly-database';

const MAX_OPEN = 32;

/**
 * Keeps read-only connections to recently queried dataset files, so a query pays no open and schema-parse cost.
 * Files are immutable, so a cached connection never goes stale; a deleted dataset is evicted and closed.
 */
export class DatasetReaders {
  private readonly open = new Map<string, Promise<ReadOnlyDatabase>>();

  get(id: string, file: string): Promise<ReadOnlyDatabase> {
    const existing = this.open.get(id);
    if (existing) {
      this.open.delete(id);
      this.open.set(id, existing);
      return existing;
    }
    const opening = ReadOnlyDatabase.open(file);
    this.open.set(id, opening);
    opening.catch(() => this.open.delete(id));
    while (this.open.size > MAX_OPEN) {
      const [oldest] = this.open.keys();
      this.evict(oldest);
    }
    return opening;
  }

  evict(id: string): void {
    const connection = this.open.get(id);
    if (!connection) return;
    this.open.delete(id);
    // Statements still running on it finish first: node-sqlite3 queues close behind them.
    connection.then((db) => db.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((c) => c.then((db) => db.close()).catch(() => undefined)));
  }
}
