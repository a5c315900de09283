import type { EntityManager } from '@mikro-orm/knex';
import { GroupCommit } from '../group-commit';
import { dialectOf } from './dialect';

/** A piece of a write transaction: it must do all its work through the `em` it is given. */
export type WriteUnit<R> = (em: EntityManager) => Promise<R>;

const writers = new WeakMap<EntityManager, GroupCommit<WriteUnit<unknown>, unknown>>();

/**
 * On SQLite, runs `unit` in a transaction shared with the other units queued meanwhile (job finishes, attempt
 * records, egress decisions): one begin and one commit for all of them. SQLite has one connection,
 * and a transaction holds it across every trip to the driver's thread, so those trips are the scarce resource. A
 * unit that fails is retried alone (`GroupCommit`), so it fails only its own caller. One writer per root
 * EntityManager, that is per database. PostgreSQL runs transactions side by side on its pool, where queueing every
 * write behind one transaction only added latency (the jobs bench submitted at half the rate): there each unit is
 * its own transaction.
 */
export function sharedWrite<R>(root: EntityManager, unit: WriteUnit<R>): Promise<R> {
  if (!hasOneWriter(root)) return root.fork().transactional(unit);
  let writer = writers.get(root);
  if (!writer) {
    writer = new GroupCommit<WriteUnit<unknown>, unknown>((units) =>
      root.fork().transactional(async (em) => {
        const results: unknown[] = [];
        for (const each of units) results.push(await each(em));
        return results;
      }),
    );
    writers.set(root, writer);
  }
  return writer.submit(unit) as Promise<R>;
}

/** SQLite: one connection, so one write at a time; batching writes is what makes them fast there. */
function hasOneWriter(em: EntityManager): boolean {
  return dialectOf(em.getPlatform()) === 'sqlite';
}
