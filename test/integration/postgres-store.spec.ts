import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, StoreLocation, StoreOrm } from '../../src/common/database';
import { MIGRATIONS } from '../../src/common/database/migrations';
import { createTestDatabase, queryTestDatabase, TestDatabase } from '../support/postgres';

let db: TestDatabase;
let store: StoreLocation;
let dataDir: string;

beforeEach(async () => {
  db = await createTestDatabase();
  store = { kind: 'postgresql', url: db.url };
  dataDir = mkdtempSync(join(tmpdir(), 'ds-pg-store-'));
});

afterEach(async () => {
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function openAndClose(location: StoreLocation | string): Promise<void> {
  const orm: StoreOrm = await openDatabase(location);
  await orm.close(true);
}

async function sqliteTables(): Promise<string[]> {
  const orm = await openDatabase(join(dataDir, 'service.sqlite'));
  try {
    const rows = await orm.em
      .fork()
      .execute<{ name: string }[]>(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      );
    return rows.map((row) => row.name);
  } finally {
    await orm.close(true);
  }
}

describe('PostgreSQL as the store (SERVICE_DATABASE_URL)', () => {
  it('applies every committed migration to an empty database: the same tables as on SQLite', async () => {
    await openAndClose(store);
    const tables = await queryTestDatabase<{ table_name: string }>(
      db.url,
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    expect(tables.map((row) => row.table_name)).toEqual(await sqliteTables());
    const applied = await queryTestDatabase<{ name: string }>(
      db.url,
      'select name from mikro_orm_migrations order by id',
    );
    expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
  });

  it('lets replicas that start at the same moment on an empty database apply each migration once', async () => {
    await Promise.all([1, 2, 3, 4].map(() => openAndClose(store)));
    const applied = await queryTestDatabase<{ name: string; times: string }>(
      db.url,
      'select name, count(*) as times from mikro_orm_migrations group by name',
    );
    expect(applied).toHaveLength(MIGRATIONS.length);
    expect(applied.every((row) => Number(row.times) === 1)).toBe(true);
  });

  it('keeps the egress decision log append-only in the database itself', async () => {
    await openAndClose(store);
    await queryTestDatabase(
      db.url,
      `insert into egress_decisions (seq, decided_at, purpose, host, port, allowed, reason, prev_hash, hash)
       values (1, '2026-01-01T00:00:00.000Z', 'webhook', 'h', 443, true, 'r', 'p', 'x')`,
    );
    await expect(queryTestDatabase(db.url, 'delete from egress_decisions')).rejects.toThrow(
      'egress_decisions is append-only',
    );
    await expect(queryTestDatabase(db.url, "update egress_decisions set host = 'other'")).rejects.toThrow(
      'egress_decisions is append-only',
    );
  });

  it('allows one operator organization, as on SQLite', async () => {
    await openAndClose(store);
    const insert = (id: string) =>
      queryTestDatabase(
        db.url,
        "insert into organizations (id, name, is_operator, created_at, updated_at) values ($1, 'o', true, 'now', 'now')",
        [id],
      );
    await insert('org_a');
    await expect(insert('org_b')).rejects.toThrow('organizations_one_operator');
  });
});

describe('a daemon older than the schema', () => {
  it('refuses a PostgreSQL schema with a migration it does not know, and names it', async () => {
    await openAndClose(store);
    await queryTestDatabase(
      db.url,
      "insert into mikro_orm_migrations (name, executed_at) values ('Migration9999FromTheFuture', now())",
    );
    await expect(openDatabase(store)).rejects.toMatchObject({
      event: 'database_schema_newer',
      message: expect.stringContaining('Migration9999FromTheFuture') as unknown,
    });
  });

  it('refuses a SQLite schema with a migration it does not know', async () => {
    const file = join(dataDir, 'service.sqlite');
    const orm = await openDatabase(file);
    await orm.em
      .fork()
      .execute(
        "insert into mikro_orm_migrations (name, executed_at) values ('Migration9999FromTheFuture', '2030-01-01')",
      );
    await orm.close(true);
    await expect(openDatabase(file)).rejects.toMatchObject({ event: 'database_schema_newer' });
  });
});
