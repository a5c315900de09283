import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { SqliteConfig, SqlServerConfig } from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import {
  ConnectorDriver,
  DriverContext,
  RowSelection,
} from '../../../src/modules/connectors/connector-driver';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { mysqlDriver } from '../../../src/modules/connectors/drivers/mysql';
import { postgresDriver } from '../../../src/modules/connectors/drivers/postgres';
import { sqliteDriver } from '../../../src/modules/connectors/drivers/sqlite';
import { TestEgressGuard } from '../../support/test-egress-guard';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';

const suffix = `${process.pid}_${Date.now()}`;
const PG_TABLE = `conn_pg_${suffix}`;
const MY_TABLE = `conn_my_${suffix}`;

function context(rules: string[], importDir = '/nonexistent'): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard(rules),
    imports: importAreaFor(importDir, 'org_1', true, []),
    scratchDir: tmpdir(),
    batchSize: 2,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

/** The rows as JSON: a declared text cell (DeclaredText) is its text. */
async function readAll<C>(
  driver: ConnectorDriver<C>,
  config: C,
  selection: RowSelection,
  ctx: DriverContext,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of driver.readRows(config, selection, ctx)) out.push(...batch);
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>[];
}

describe('postgres driver (local PostgreSQL)', () => {
  const config = (extra: Record<string, unknown> = {}): SqlServerConfig =>
    normalizeConfig({ type: 'postgres' }, { host: '127.0.0.1', database: 'test', user: 'postgres', ...extra })
      .values as SqlServerConfig;
  const allowed = context(['127.0.0.1:5432']);

  beforeAll(async () => {
    const client = new Client({ host: '127.0.0.1', user: 'postgres', database: 'test' });
    await client.connect();
    await client.query(
      `create table ${PG_TABLE} (id int primary key, name text, big bigint, doc jsonb, at timestamptz)`,
    );
    await client.query(
      `insert into ${PG_TABLE} values (1, 'a', 9007199254740993, '{"k":1}', '2024-01-02T03:04:05Z'), (2, 'b', 2, null, null), (3, 'c', 3, null, null)`,
    );
    await client.end();
  });

  afterAll(async () => {
    const client = new Client({ host: '127.0.0.1', user: 'postgres', database: 'test' });
    await client.connect();
    await client.query(`drop table if exists ${PG_TABLE}`);
    await client.end();
  });

  it('tests, reporting the server version', async () => {
    const outcome = await postgresDriver.test(config(), allowed);
    expect(outcome.message).toContain('PostgreSQL');
    expect(outcome.details?.database).toBe('test');
  });

  it('accepts a SQLAlchemy-style connection_string', async () => {
    const dsn = normalizeConfig(
      { type: 'postgres' },
      { connection_string: 'postgresql+psycopg2://postgres@127.0.0.1:5432/test?sslmode=disable' },
    ).values as SqlServerConfig;
    expect((await postgresDriver.test(dsn, allowed)).details?.database).toBe('test');
  });

  it('an unknown database is not_found', async () => {
    const error = await connectorFailure(
      postgresDriver.test(config({ database: `missing_${suffix}` }), allowed),
    );
    expect(error.errorType).toBe('not_found');
    expect(error.recoverable).toBe(true);
  });

  it('a blocked destination is egress_blocked and never contacted', async () => {
    const ctx = context([]);
    const error = await connectorFailure(postgresDriver.test(config(), ctx));
    expect(error.errorType).toBe('egress_blocked');
    expect((ctx.egress as TestEgressGuard).attempts).toEqual([
      { host: '127.0.0.1', port: 5432, allowed: false, purpose: 'connector' },
    ]);
  });

  it('browses tables with columns', async () => {
    const result = await postgresDriver.browse(config(), allowed);
    const table = result.items.find((item) => item.name === PG_TABLE);
    expect(table).toMatchObject({ kind: 'table', schema: 'public' });
    expect(table?.columns?.map((c) => c.name)).toEqual(['id', 'name', 'big', 'doc', 'at']);
  });

  it('streams a table in batches with exact big integers', async () => {
    const rows = await readAll(postgresDriver, config(), { table: PG_TABLE }, allowed);
    expect(rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      // The server's own text: the dataset ingest reads it (docs/datasets.md, "What each source's types become").
      { id: 1, name: 'a', big: '9007199254740993', doc: '{"k": 1}', at: '2024-01-02 03:04:05+00' },
      { id: 2, name: 'b', big: '2', doc: null, at: null },
      { id: 3, name: 'c', big: '3', doc: null, at: null },
    ]);
  });

  it('runs a read-only query and refuses writes', async () => {
    expect(
      await readAll(
        postgresDriver,
        config(),
        { query: `select id from ${PG_TABLE} where id > 1 order by id` },
        allowed,
      ),
    ).toEqual([{ id: 2 }, { id: 3 }]);
    expect(
      (
        await connectorFailure(
          readAll(postgresDriver, config(), { query: `delete from ${PG_TABLE}` }, allowed),
        )
      ).errorType,
    ).toBe('invalid_config');
    expect(
      (
        await connectorFailure(
          readAll(postgresDriver, config(), { query: `select 1; delete from ${PG_TABLE}` }, allowed),
        )
      ).errorType,
    ).toBe('invalid_config');
    expect(await readAll(postgresDriver, config(), { table: PG_TABLE }, allowed)).toHaveLength(3);
  });

  it('refuses queries that reach the server beyond the read-only transaction, and rolls the read back', async () => {
    const client = new Client({ host: '127.0.0.1', user: 'postgres', database: 'test' });
    await client.connect();
    const largeObjects = async () =>
      Number((await client.query('select count(*) as n from pg_largeobject_metadata')).rows[0].n);
    try {
      const before = await largeObjects();
      for (const query of [
        "select lo_import('/etc/hostname')",
        `select "lo_import"('/etc/hostname')`,
        "select pg_catalog . lo_import ('/etc/hostname')",
        "select lo_export(0, '/tmp/x')",
        `select U&"lo\\005fimport"('/etc/hostname')`,
        "select query_to_xml('select lo_'||'import(''/etc/hostname'')', true, true, '')",
        "select pg_read_file('/etc/hostname')",
        "copy (select 1) to program 'true'",
        "/* a */ copy (select 1) to program 'true'",
      ]) {
        const error = await connectorFailure(readAll(postgresDriver, config(), { query }, allowed));
        expect([query, error.errorType]).toEqual([query, 'invalid_config']);
      }
      expect(await largeObjects()).toBe(before);
      // A function the server lets run in a READ ONLY transaction leaves nothing, because the read is rolled back.
      await client.query(
        `create function ${PG_TABLE}_lo() returns oid language sql volatile as $$ select lo_from_bytea(0, 'x') $$`,
      );
      const [row] = await readAll(
        postgresDriver,
        config(),
        { query: `select ${PG_TABLE}_lo() as id` },
        allowed,
      );
      expect(typeof row.id).toBe('number');
      const kept = await client.query('select count(*) as n from pg_largeobject_metadata where oid = $1', [
        row.id,
      ]);
      expect(Number(kept.rows[0].n)).toBe(0);
    } finally {
      await client.query(`drop function if exists ${PG_TABLE}_lo()`);
      await client.end();
    }
  });

  it('limit stops early', async () => {
    expect(await readAll(postgresDriver, config(), { table: PG_TABLE, limit: 1 }, allowed)).toHaveLength(1);
  });

  it('a missing table is not_found', async () => {
    expect(
      (await connectorFailure(readAll(postgresDriver, config(), { table: `nope_${suffix}` }, allowed)))
        .errorType,
    ).toBe('not_found');
  });
});

describe('mysql driver (local MariaDB)', () => {
  const config = (extra: Record<string, unknown> = {}): SqlServerConfig =>
    normalizeConfig({ type: 'mysql' }, { host: '127.0.0.1', database: 'test', user: 'root', ...extra })
      .values as SqlServerConfig;
  const allowed = context(['127.0.0.1:3306']);

  beforeAll(async () => {
    const connection = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
    await connection.query(
      `create table ${MY_TABLE} (id int primary key, name varchar(20), big bigint, at datetime)`,
    );
    await connection.query(
      `insert into ${MY_TABLE} values (1, 'a', 9007199254740993, '2024-01-02 03:04:05'), (2, 'b', 2, null), (3, 'c', 3, null)`,
    );
    await connection.end();
  });

  afterAll(async () => {
    const connection = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
    await connection.query(`drop table if exists ${MY_TABLE}`);
    await connection.end();
  });

  it('tests', async () => {
    expect((await mysqlDriver.test(config(), allowed)).details?.database).toBe('test');
  });

  it('a wrong password is auth_failed', async () => {
    const error = await connectorFailure(mysqlDriver.test(config({ password: 'definitely-wrong' }), allowed));
    expect(error.errorType).toBe('auth_failed');
    expect(error.recoverable).toBe(true);
  });

  it('an unknown database is not_found', async () => {
    expect(
      (await connectorFailure(mysqlDriver.test(config({ database: `missing_${suffix}` }), allowed)))
        .errorType,
    ).toBe('not_found');
  });

  it('a blocked destination is egress_blocked', async () => {
    expect((await connectorFailure(mysqlDriver.test(config(), context([])))).errorType).toBe(
      'egress_blocked',
    );
  });

  it('browses and streams rows', async () => {
    const result = await mysqlDriver.browse(config(), allowed);
    expect(result.items.find((item) => item.name === MY_TABLE)?.columns?.map((c) => c.name)).toEqual([
      'id',
      'name',
      'big',
      'at',
    ]);
    expect(
      await readAll(mysqlDriver, config(), { query: `select * from ${MY_TABLE} order by id` }, allowed),
    ).toEqual([
      { id: 1, name: 'a', big: '9007199254740993', at: '2024-01-02 03:04:05' },
      { id: 2, name: 'b', big: '2', at: null },
      { id: 3, name: 'c', big: '3', at: null },
    ]);
    expect(
      (await connectorFailure(readAll(mysqlDriver, config(), { query: `delete from ${MY_TABLE}` }, allowed)))
        .errorType,
    ).toBe('invalid_config');
  });

  it('refuses INTO OUTFILE/DUMPFILE and other side effects, however they are spelled: no file appears', async () => {
    const file = join(tmpdir(), `${MY_TABLE}.out`);
    for (const query of [
      `select * from ${MY_TABLE} into outfile '${file}'`,
      `select * from ${MY_TABLE} INTO/**/OUTFILE '${file}'`,
      `select * from ${MY_TABLE} /*!50000 into outfile '${file}' */`,
      `select * from ${MY_TABLE} into # c\n dumpfile '${file}'`,
      `select load_file('/etc/hostname')`,
      'set global general_log = 1',
      'do sleep(0)',
    ]) {
      const error = await connectorFailure(readAll(mysqlDriver, config(), { query }, allowed));
      expect([query, error.errorType]).toEqual([query, 'invalid_config']);
    }
    expect(existsSync(file)).toBe(false);
    expect(
      await readAll(
        mysqlDriver,
        config(),
        { query: `/* ok */ select id from ${MY_TABLE} where id = 2` },
        allowed,
      ),
    ).toEqual([{ id: 2 }]);
  });
});

describe('sqlite driver', () => {
  let importDir: string;
  let outside: string;

  /** Writes a database file with node-sqlite3, the driver the connector reads with. */
  function writeDatabase(path: string, sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(path);
      db.exec(sql, (error) => db.close(() => (error ? reject(error) : resolve())));
    });
  }

  beforeAll(async () => {
    importDir = mkdtempSync(join(tmpdir(), 'conn-import-'));
    outside = mkdtempSync(join(tmpdir(), 'conn-outside-'));
    await writeDatabase(
      join(importDir, 'shop.db'),
      'create table orders (id integer primary key, total real, big integer); insert into orders values (1, 9.5, 9007199254740993), (2, 3, 2); create view big_orders as select * from orders where total > 5',
    );
    await writeDatabase(
      join(importDir, 'many.db'),
      'create table n (x integer); with recursive s(v) as (select 1 union all select v + 1 from s where v < 45) insert into n select v from s',
    );
    await writeDatabase(join(outside, 'secret.db'), 'create table t (a)');
    symlinkSync(join(outside, 'secret.db'), join(importDir, 'link.db'));
    writeFileSync(join(importDir, 'not.db'), 'hello');
  });

  afterAll(() => {
    rmSync(importDir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const config = (raw: Record<string, unknown>): SqliteConfig =>
    normalizeConfig({ type: 'sqlite' }, raw).values as SqliteConfig;

  it('opens a file in the import dir read-only and browses it', async () => {
    expect((await sqliteDriver.test(config({ path: 'shop.db' }), context([], importDir))).message).toContain(
      '2 table(s) and view(s)',
    );
    const result = await sqliteDriver.browse(
      config({ connection_string: 'sqlite:///shop.db' }),
      context([], importDir),
    );
    expect(result.items).toEqual([
      {
        name: 'big_orders',
        kind: 'view',
        columns: [
          { name: 'id', type: 'INTEGER' },
          { name: 'total', type: 'REAL' },
          { name: 'big', type: 'INTEGER' },
        ],
      },
      {
        name: 'orders',
        kind: 'table',
        columns: [
          { name: 'id', type: 'INTEGER' },
          { name: 'total', type: 'REAL' },
          { name: 'big', type: 'INTEGER' },
        ],
      },
    ]);
  });

  it('streams rows with exact big integers and refuses writes', async () => {
    expect(
      await readAll(sqliteDriver, config({ path: 'shop.db' }), { table: 'orders' }, context([], importDir)),
    ).toEqual([
      { id: 1, total: 9.5, big: '9007199254740993' },
      { id: 2, total: 3, big: 2 },
    ]);
    expect(
      (
        await connectorFailure(
          readAll(
            sqliteDriver,
            config({ path: 'shop.db' }),
            { query: 'delete from orders' },
            context([], importDir),
          ),
        )
      ).errorType,
    ).toBe('invalid_config');
  });

  it('reads a query past several windows of rows, in its order, and each row once', async () => {
    const rows = await readAll(
      sqliteDriver,
      config({ path: 'many.db' }),
      { query: 'select x, x * 2 as y from n where x > 3 order by x desc;' },
      context([], importDir),
    );
    expect(rows).toEqual(Array.from({ length: 42 }, (_, i) => ({ x: 45 - i, y: 2 * (45 - i) })));
  });

  it.each([
    ['select 1; delete from orders'],
    ['select 1; select 2'],
    ["select ';' as s; drop table orders -- ;"],
    ['update orders set total = 0'],
    ['pragma writable_schema = 1'],
  ])('refuses %s as invalid_config and leaves the file as it was', async (query) => {
    const failure = await connectorFailure(
      readAll(sqliteDriver, config({ path: 'shop.db' }), { query }, context([], importDir)),
    );
    expect(failure.errorType).toBe('invalid_config');
    expect(
      await readAll(sqliteDriver, config({ path: 'shop.db' }), { table: 'orders' }, context([], importDir)),
    ).toHaveLength(2);
  });

  it('keeps a semicolon inside a string literal, a quoted name or a comment', async () => {
    expect(
      await readAll(
        sqliteDriver,
        config({ path: 'shop.db' }),
        { query: `select ';' as "a;b" /* ; */ from orders where id = 1 -- ;` },
        context([], importDir),
      ),
    ).toEqual([{ 'a;b': ';' }]);
  });

  it('refuses paths outside the import dir, also through symlinks', async () => {
    for (const path of [join(outside, 'secret.db'), '../x.db', 'link.db']) {
      expect(
        (await connectorFailure(sqliteDriver.test(config({ path }), context([], importDir)))).errorType,
      ).toBe('path_not_allowed');
    }
  });

  it('a missing file is path_not_allowed (like a file it may not read) and a non-database is invalid_payload', async () => {
    expect(
      (await connectorFailure(sqliteDriver.test(config({ path: 'missing.db' }), context([], importDir))))
        .errorType,
    ).toBe('path_not_allowed');
    expect(
      (await connectorFailure(sqliteDriver.test(config({ path: 'not.db' }), context([], importDir))))
        .errorType,
    ).toBe('invalid_payload');
  });
});
