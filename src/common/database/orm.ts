import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, Options } from '@mikro-orm/sqlite';
import { BoundSqliteDriver } from './bound-sqlite';
import { registeredEntities } from './entity-registry';
import { MIGRATIONS } from './migrations';

export const SQLITE_BUSY_TIMEOUT_MS = 5000;

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** Per-connection pragmas: WAL for concurrent readers, enforced foreign keys, and waiting instead of SQLITE_BUSY. */
function preparePragmas(
  connection: SqliteConnection,
  done: (error: Error | null, c: SqliteConnection) => void,
): void {
  connection.exec(
    `pragma journal_mode = wal; pragma foreign_keys = on; pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; pragma synchronous = normal;`,
    (error) => done(error, connection),
  );
}

export function ormOptions(databaseFile: string): Options {
  return {
    driver: BoundSqliteDriver,
    dbName: databaseFile,
    entities: registeredEntities(),
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      migrationsList: MIGRATIONS,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 1, max: 1, idleTimeoutMillis: 2 ** 31 - 1, afterCreate: preparePragmas },
    allowGlobalContext: false,
    debug: false,
  };
}

/**
 * The database and its WAL and shared-memory files are readable by the daemon's user only, whatever the umask of
 * whoever opens it first (daemon, provision, rekey). SQLite creates `-wal` and `-shm` with the mode of the database
 * file, so a database created 0600 keeps them so; an older install's looser files are tightened here.
 */
function restrictDatabaseFiles(databaseFile: string): void {
  if (!existsSync(databaseFile)) closeSync(openSync(databaseFile, 'a', 0o600));
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (existsSync(databaseFile + suffix)) chmodSync(databaseFile + suffix, 0o600);
  }
}

/** Opens the database and applies every pending committed migration (never schema auto-sync). */
export async function openDatabase(databaseFile: string): Promise<MikroORM> {
  mkdirSync(dirname(databaseFile), { recursive: true, mode: 0o700 });
  restrictDatabaseFiles(databaseFile);
  const orm = await MikroORM.init(ormOptions(databaseFile));
  await orm.getMigrator().up();
  return orm;
}
