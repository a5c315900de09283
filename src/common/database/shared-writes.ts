import type { EntityManager } from '@mikro-orm/sqlite';
import { GroupCommit } from '../group-commit';

/** A piece of a write transaction: it must do all its work through the `em` it is given. */
export type WriteUnit<R> = (em: EntityManager) => Promise<R>;

const writers = new WeakMap<EntityManager, GroupCommit<WriteUnit<unknown>, unknown>>();

/**
 * Runs `unit` in a transaction shared with the other units queued on the same database meanwhile (job finishes,
 * attempt records, egress decisions, submitted jobs): one begin and one commit for all of them. SQLite has one
 * connection, and a transaction holds it across every trip to the driver's thread, so the commits it saves are the
 * scarce resource; on PostgreSQL each saved commit is a saved WAL flush. A unit that fails is retried alone
 * (`GroupCommit`), so it fails only its own caller. One writer per root EntityManager, that is per database.
 */
export function sharedWrite<R>(root: EntityManager, unit: WriteUnit<R>): Promise<R> {
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
