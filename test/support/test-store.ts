import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { AppConfig } from '../../src/common/config';
import { openDatabase, storeLocationOf, StoreOrm } from '../../src/common/database';
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
