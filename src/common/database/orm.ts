import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options as CoreOptions } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { AbstractSqlDriver, EntityManager } from '@mikro-orm/knex';
import type { Options } from '@mikro-orm/sqlite';
import { registeredEntities } from './entity-registry';
import { MIGRATIONS } from './migrations';
import { migrateUnderLock } from './schema-migration';
import { SqliteStoreDriver, StatementKeepingSqliteDialect } from './sqlite-store-driver';

export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export type StoreLocation =
  { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgresql'; readonly url: string };

export type StoreOrm = MikroORM<AbstractSqlDriver, EntityManager>;

export function storeLocationOf(config: {
  readonly databaseUrl?: string;
  readonly databaseFile: string;
}): StoreLocation {
  return config.databaseUrl
    ? { kind: 'postgresql', url: config.databaseUrl }
    : { kind: 'sqlite', file: config.databaseFile };
}

/** Never the user or password: this goes to logs. */
export function postgresServerOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}/${decodeURIComponent(parsed.pathname.slice(1))}`;
}

export function describeStore(location: StoreLocation): string {
  if (location.kind === 'sqlite') return `sqlite:${location.file}`;
  return `postgresql://${postgresServerOf(location.url)}`;
}

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** Each new connection gets its pragmas: WAL for concurrent readers, enforced foreign keys, and waiting instead of SQLITE_BUSY. */
function prepareConnection(
  connection: SqliteConnection,
  done: (error: Error | null, c: SqliteConnection) => void,
): void {
  connection.exec(
    `pragma journal_mode = wal; pragma foreign_keys = on; pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; pragma synchronous = normal;`,
    (error) => done(error, connection),
  );
}

const MIGRATION_OPTIONS = {
  migrationsList: MIGRATIONS,
  transactional: true,
  allOrNothing: true,
  snapshot: false,
  silent: true,
};

export function ormOptions(databaseFile: string): Options {
  return {
    driver: SqliteStoreDriver,
    dbName: databaseFile,
    entities: registeredEntities(),
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: MIGRATION_OPTIONS,
    pool: { min: 1, max: 1, idleTimeoutMillis: 2 ** 31 - 1, afterCreate: prepareConnection },
    driverOptions: { client: StatementKeepingSqliteDialect },
    allowGlobalContext: false,
    debug: false,
  };
}

/**
 * How long a request waits for a pooled PostgreSQL connection, and for a new one to open, before it fails as
 * `store_unavailable`: a database that is down or unreachable is answered in seconds rather than after the
 * driver's default minute.
 */
export const POSTGRES_ACQUIRE_TIMEOUT_MS = 10_000;
export const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;

/** What the driver has to say about connections it drops (a restarted server, a cut network). */
export type StoreDriverLog = (message: string) => void;

/** The operator creates the database; replicas never race to create it. */
function postgresOptions(url: string, log?: StoreDriverLog): CoreOptions<PostgreSqlDriver> {
  const report = log ?? (() => undefined);
  return {
    driver: PostgreSqlDriver,
    clientUrl: url,
    ensureDatabase: false,
    entities: registeredEntities(),
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: MIGRATION_OPTIONS,
    pool: { min: 0, max: 10, acquireTimeoutMillis: POSTGRES_ACQUIRE_TIMEOUT_MS },
    driverOptions: {
      connection: { connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS, keepAlive: true },
      log: { warn: report, error: report, deprecate: () => undefined, debug: () => undefined },
    },
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

async function connect(location: StoreLocation, log?: StoreDriverLog): Promise<StoreOrm> {
  if (location.kind === 'postgresql') return MikroORM.init(postgresOptions(location.url, log));
  mkdirSync(dirname(location.file), { recursive: true, mode: 0o700 });
  restrictDatabaseFiles(location.file);
  return MikroORM.init(ormOptions(location.file));
}

/** Applies every pending committed migration, never schema auto-sync. */
export async function openDatabase(
  location: StoreLocation | string,
  log?: StoreDriverLog,
): Promise<StoreOrm> {
  const orm = await connect(
    typeof location === 'string' ? { kind: 'sqlite', file: location } : location,
    log,
  );
  try {
    await migrateUnderLock(orm);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
