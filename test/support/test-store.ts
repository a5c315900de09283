import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntitySchema, MikroORM } from '@mikro-orm/core';
import { AppConfig } from '../../src/common/config';
import { openDatabase, storeLocationOf, StoreOrm } from '../../src/common/database';
import { registerEntities } from '../../src/common/database/entity-registry';
import { createTestDatabase } from './postgres';
import type { TestApp } from './test-app';

export interface TestStore {
  /** Migrated, as the daemon opens it. */
  readonly orm: StoreOrm;
  /** Closes the ORM and, on PostgreSQL, drops the database. */
  close(): Promise<void>;
}

/**
 * A store for tests that drive repositories without a daemon, on the store the run is about: under
 * `TEST_STORE=postgresql` (npm run test:pg) a fresh PostgreSQL database of its own, else `service.sqlite` in dataDir.
 */
export async function openTestStore(dataDir: string): Promise<TestStore> {
  if (process.env.TEST_STORE !== 'postgresql') {
    const orm = await openDatabase(join(dataDir, 'service.sqlite'));
    return { orm, close: () => orm.close(true) };
  }
  const database = await createTestDatabase();
  const orm = await openDatabase({ kind: 'postgresql', url: database.url });
  return {
    orm,
    async close() {
      await orm.close(true);
      await database.drop();
    },
  };
}

export interface RepositoryStore extends TestStore {
  /** The data dir of its own the store was opened for (its SQLite file lies there); close() removes it. */
  readonly dataDir: string;
}

/**
 * openTestStore for a spec that drives repositories or services without a daemon: `entities` registered before the
 * ORM starts, in a fresh data dir named from `prefix`; closing it also removes the data dir.
 */
export async function openRepositoryStore(
  entities: readonly EntitySchema[],
  prefix: string,
): Promise<RepositoryStore> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const removeDataDir = (): void => rmSync(dataDir, { recursive: true, force: true });
  registerEntities(entities);
  let store: TestStore;
  try {
    store = await openTestStore(dataDir);
  } catch (error) {
    removeDataDir();
    throw error;
  }
  return {
    orm: store.orm,
    dataDir,
    async close() {
      try {
        await store.close();
      } finally {
        removeDataDir();
      }
    },
  };
}

/** One query on a running test app's store, through the daemon's own ORM: either store, `?` placeholders. */
export function queryAppStore<T extends object>(
  t: Pick<TestApp, 'app'>,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return t.app.get(MikroORM).em.fork().getConnection().execute<T[]>(sql, params);
}

/**
 * One statement on the store of a stopped test app (closed with `close(true)`), through the ORM the daemon would
 * open: to put the state in a shape the next start must cope with.
 */
export async function executeOnStoppedStore(
  config: AppConfig,
  sql: string,
  params: unknown[] = [],
): Promise<void> {
  const orm = await openDatabase(storeLocationOf(config));
  try {
    await orm.em.getConnection().execute(sql, params);
  } finally {
    await orm.close(true);
  }
}
