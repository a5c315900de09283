import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/knex';
import type { WindowCounter } from './window-counter';

/** Expired events are deleted by every this-many hits of a counter, so the table stays the size of its windows. */
const SWEEP_EVERY_HITS = 500;

/**
 * Replicas on one PostgreSQL database: the events live in `rate_limit_hits`, so a client that is refused by one
 * replica is refused by all. Key parts are stored as hashes, since they are account addresses and client IPs that
 * the table has no other reason to hold.
 */
export class SharedWindowCounter implements WindowCounter {
  private hitsSinceSweep = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  async retryAfterMs(key: readonly string[], now = Date.now()): Promise<number> {
    // The limit-th newest event in the window: the key may try again once it has left the window.
    const rows = await this.connection().execute<{ at: string | number }[]>(
      'select at from rate_limit_hits where counter = ? and key = ? and at > ? order by at desc limit 1 offset ?',
      [this.name, storedKey(key), now - this.windowMs, this.limit - 1],
    );
    return rows.length === 0 ? 0 : Math.max(0, Number(rows[0].at) + this.windowMs - now);
  }

  async hit(key: readonly string[], now = Date.now()): Promise<number> {
    const connection = this.connection();
    const stored = storedKey(key);
    await connection.execute('insert into rate_limit_hits (counter, key, at) values (?, ?, ?)', [
      this.name,
      stored,
      now,
    ]);
    const rows = await connection.execute<{ hits: string | number }[]>(
      'select count(*) as hits from rate_limit_hits where counter = ? and key = ? and at > ?',
      [this.name, stored, now - this.windowMs],
    );
    if (++this.hitsSinceSweep >= SWEEP_EVERY_HITS) {
      this.hitsSinceSweep = 0;
      await connection.execute('delete from rate_limit_hits where counter = ? and at <= ?', [
        this.name,
        now - this.windowMs,
      ]);
    }
    return Number(rows[0].hits);
  }

  async tryHit(key: readonly string[], now = Date.now()): Promise<number | null> {
    const stored = storedKey(key);
    // The key's advisory lock makes the count and the insert one step for every replica.
    return this.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`rate-limit:${this.name}:${stored}`]);
      const [row] = await tx.execute<{ hits: string | number }[]>(
        'select count(*) as hits from rate_limit_hits where counter = ? and key = ? and at > ?',
        [this.name, stored, now - this.windowMs],
      );
      const hits = Number(row.hits);
      if (hits >= this.limit) return null;
      await tx.execute('insert into rate_limit_hits (counter, key, at) values (?, ?, ?)', [
        this.name,
        stored,
        now,
      ]);
      return hits + 1;
    });
  }

  async release(key: readonly string[], at: number): Promise<void> {
    // Rows have no id: events of one key at one instant are alike, so any one of them may go.
    await this.connection().execute(
      'delete from rate_limit_hits where ctid = (select ctid from rate_limit_hits where counter = ? and key = ? and at = ? limit 1)',
      [this.name, storedKey(key), at],
    );
  }

  async resetPrefix(prefix: readonly string[]): Promise<void> {
    const stored = storedKey(prefix);
    await this.connection().execute(
      'delete from rate_limit_hits where counter = ? and (key = ? or key like ?)',
      [this.name, stored, `${stored}/%`],
    );
  }

  private connection() {
    return this.em.fork().getConnection();
  }
}

/** Hex digests joined by `/`: a prefix of parts is a prefix of the stored key, and no part can contain `/`. */
function storedKey(parts: readonly string[]): string {
  return parts.map((part) => createHash('sha256').update(part).digest('hex').slice(0, 32)).join('/');
}
