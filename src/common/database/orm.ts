import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, Options, SqliteDriver } from '@mikro-orm/sqlite';
import { registeredEntities } from './entity-registry';
import { MIGRATIONS } from './migrations';

export const SQLITE_BUSY_TIMEOUT_MS = 5000;

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** Per-connection pragmas: WAL for concurrent readers, enforced foreign keys, and waiting instead of SQLITE_BUSY. */
function preparePragmas(connection: SqliteConnection, done: (error: Error | null, c: SqliteConnection) => void): void {
  connection.exec(
    `pragma journal_mode = wal; pragma foreign_keys = on; pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; pragma synchronous = normal;`,
    (error) => done(error, connection),
  );
}

export function ormOptions(databaseFile: string): Options {
  return {
    driver: SqliteDriver,
    dbName: databaseFile,
    entities: registeredEntities(),
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    pool: { min: 1, max: 1, idleTimeoutMillis: 2 ** 31 - 1, afterCreate: preparePragmas },
    allowGlobalContext: false,
    debug: false,
  };
}

/** Opens the database and applies every pending committed migration (never schema auto-sync). */
export async function openDatabase(databaseFile: string): Promise<MikroORM> {
  mkdirSync(dirname(databaseFile), { recursive: true, mode: 0o700 });
  const orm = await MikroORM.init(ormOptions(databaseFile));
  await orm.getMigrator().up();
  return orm;
}
