import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, EntityManager } from '@mikro-orm/knex';
import { StartupError } from '../errors';
import { dialectOf } from './dialect';
import { MIGRATIONS } from './migrations';

/** One advisory-lock number for schema changes, the same in every replica of every version. */
const MIGRATION_LOCK = 4_410_001;

interface PgClient {
  query(sql: string, values: unknown[]): Promise<unknown>;
}

interface ConnectionLender {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<unknown>;
}

/**
 * Runs `work` holding the migration lock. On PostgreSQL it is a session advisory lock on a connection held aside, so
 * replicas starting together migrate one after another, and a replica that dies holding it releases it with its
 * session. SQLite has one writer already and its single pooled connection must stay free for the migration.
 */
async function withMigrationLock<T>(orm: MikroORM<AbstractSqlDriver, EntityManager>, work: () => Promise<T>) {
  if (dialectOf(orm.em.getPlatform()) !== 'postgresql') return work();
  const lender = orm.em.getConnection().getKnex().client as ConnectionLender;
  const connection = await lender.acquireConnection();
  try {
    await connection.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      return await work();
    } finally {
      await connection.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await lender.releaseConnection(connection);
  }
}

/** A schema written by a newer version may mean anything to this one: refuse rather than guess. */
function refuseUnknownMigrations(executed: readonly string[]): void {
  const known = new Set(MIGRATIONS.map((migration) => migration.name));
  const unknown = executed.filter((name) => !known.has(name));
  if (unknown.length === 0) return;
  throw new StartupError(
    'database_schema_newer',
    `The database schema is newer than this daemon: it has migrations this version does not know (${unknown.join(', ')}). ` +
      'Upgrade this node to the version that applied them; it does not run against a schema it does not know.',
    { unknown_migrations: unknown },
  );
}

export async function migrateUnderLock(orm: MikroORM<AbstractSqlDriver, EntityManager>): Promise<void> {
  const migrator = orm.getMigrator();
  await withMigrationLock(orm, async () => {
    refuseUnknownMigrations((await migrator.getExecutedMigrations()).map((row) => row.name));
    await migrator.up();
  });
}
