import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';

/**
 * An open write transaction as a module that does not own it sees it: it may add its rows, and nothing else. The
 * module that owns the unit of work keeps its EntityManager and hands this out, so a module never reads, updates or
 * commits through another module's EntityManager, and its rows commit or roll back with the owner's.
 */
export interface Transaction {
  /** Inserts `rows` in one statement (none for an empty list); they are written iff the transaction commits. */
  insertAll<T extends object>(schema: EntitySchema<T>, rows: readonly T[]): Promise<void>;
}

/** The narrow face of the owner's transaction `em`, for the modules that add rows to it. */
export function transactionOf(em: EntityManager): Transaction {
  return {
    async insertAll<T extends object>(schema: EntitySchema<T>, rows: readonly T[]): Promise<void> {
      if (rows.length > 0) await em.insertMany(schema, [...rows]);
    },
  };
}
