import type { EntityManager } from '@mikro-orm/knex';
import { GroupCommit } from '../group-commit';
import { dialectOf } from './dialect';

/** A piece of a write transaction: it must do all its work through the `em` it is given. */
export type WriteUnit<R> = (em: EntityManager) => Promise<R>;

const writers = new WeakMap<EntityManager, GroupCommit<WriteUnit<unknown>, unknown>>();

/**
 * On SQLite, runs `unit` in a transaction shared with the units queued meanwhile: SQLite has one connection, held
 * across every trip to the driver's thread, so trips are the scarce resource. A failing unit is retried alone
 * (`GroupCommit`), so it fails only its own caller. On PostgreSQL each unit is its own transaction: its pool runs
 * them side by side, and queueing them behind one only added latency.
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
