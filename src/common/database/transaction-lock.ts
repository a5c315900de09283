import type { EntityManager } from '@mikro-orm/knex';
import { dialectOf } from './dialect';

/**
 * Serialises the transactions that name the same `subject` until they commit: on PostgreSQL a transaction-scoped
 * advisory lock, for checks that read other rows before writing (the last key of an organization, the head of a hash
 * chain) and would otherwise both pass under concurrent replicas. SQLite's one writer serialises them already.
 */
export async function serializeTransactionsOn(em: EntityManager, subject: string): Promise<void> {
  if (dialectOf(em.getPlatform()) !== 'postgresql') return;
  await em.execute('select pg_advisory_xact_lock(hashtext(?))', [subject]);
}
