import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Client } from 'pg';

/** The machine's PostgreSQL (trust auth); every test makes its own database on it and drops it afterwards. */
const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: SERVER });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `ds_test_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`create database ${name}`));
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      onServer((client) => client.query(`drop database if exists ${name} with (force)`)).then(
        () => undefined,
      ),
  };
}

/**
 * The same, for callers that cannot wait (spawning a daemon process is synchronous): `psql` runs the statement. The
 * caller drops it with `dropTestDatabaseSync` once the test is done.
 */
export function createTestDatabaseSync(): { url: string; name: string } {
  const name = `ds_test_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', ['-qX', '-d', SERVER, '-c', `create database ${name}`], { stdio: 'pipe' });
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

export function dropTestDatabaseSync(name: string): void {
  execFileSync('psql', ['-qX', '-d', SERVER, '-c', `drop database if exists ${name} with (force)`], {
    stdio: 'pipe',
  });
}

/** Runs one statement on a test database, outside the daemon (to inspect or to tamper, as a test needs). */
export async function queryTestDatabase<T extends Record<string, unknown>>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * What `SERVICE_DATABASE_URL` requires beside it: the secrets and directories every replica shares. The datasets
 * dir defaults to `datasets` beside the keys dir (a test app's own data dir: its usual default).
 */
export function sharedSecretsEnv(
  keysDir: string,
  datasetsDir = join(dirname(keysDir), 'datasets'),
): Record<string, string> {
  return {
    SERVICE_JWT_SECRET: 'test-shared-jwt-secret-0123456789abcdef',
    SERVICE_API_KEY_PEPPER: 'test-shared-api-key-pepper-0123456789',
    SERVICE_CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 11).toString('base64'),
    SERVICE_KEYS_DIR: keysDir,
    SERVICE_DATASETS_DIR: datasetsDir,
  };
}
