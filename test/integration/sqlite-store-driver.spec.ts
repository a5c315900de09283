import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, Options, SqliteDriver } from '@mikro-orm/sqlite';
import { ormOptions } from '../../src/common/database/orm';
import { SqliteStoreDriver } from '../../src/common/database/sqlite-store-driver';

interface Sample {
  id: string;
  label: string;
  seenAt: Date;
  seenAtInt: Date;
  seenAtAny?: Date | null;
  active: boolean;
  activeText: boolean;
  settings: Record<string, unknown>;
  tags: string[];
  blob: Buffer;
  count: number;
  large: number;
  ratio: number;
  note?: string | null;
}

const SampleSchema = new EntitySchema<Sample>({
  name: 'Sample',
  tableName: 'samples',
  properties: {
    id: { type: 'string', primary: true },
    label: { type: 'string' },
    seenAt: { type: 'Date', fieldName: 'seen_at' },
    seenAtInt: { type: 'Date', fieldName: 'seen_at_int' },
    seenAtAny: { type: 'Date', fieldName: 'seen_at_any', nullable: true },
    active: { type: 'boolean' },
    activeText: { type: 'boolean', fieldName: 'active_text' },
    settings: { type: 'json' },
    tags: { type: 'json' },
    blob: { type: 'blob' },
    count: { type: 'integer' },
    large: { type: 'integer' },
    ratio: { type: 'double' },
    note: { type: 'string', nullable: true },
  },
});

// Mixed affinities on purpose: the project stores dates in text columns, and a value's stored type depends on both.
const DDL = `create table samples (
  id text primary key, label text not null, seen_at text not null, seen_at_int integer not null, seen_at_any,
  active integer not null, active_text text not null, settings text not null, tags text not null, blob blob not null,
  count integer not null, large numeric not null, ratio real not null, note)`;

const COLUMNS = [
  'id',
  'label',
  'seen_at',
  'seen_at_int',
  'seen_at_any',
  'active',
  'active_text',
  'settings',
  'tags',
  'blob',
  'count',
  'large',
  'ratio',
  'note',
];

const sample = (id: string, label: string): Sample => ({
  id,
  label,
  seenAt: new Date('2026-11-26T10:15:30.123Z'),
  seenAtInt: new Date('2001-02-03T04:05:06.007Z'),
  seenAtAny: new Date(0),
  active: true,
  activeText: false,
  settings: { nested: { n: 1.5, s: "it's ?", none: null }, list: [1, 'two'] },
  tags: ['a', "b'c", '?'],
  blob: Buffer.from([0, 1, 2, 255]),
  count: 42,
  large: 2 ** 40 + 1,
  ratio: 0.1 + 0.2,
  note: null,
});

let dir: string;

async function open(name: string, driver: Options['driver']): Promise<MikroORM> {
  const file = join(dir, `${name}.sqlite`);
  await rawQuery(file, (db, done) => db.exec(DDL, done));
  return MikroORM.init({ ...ormOptions(file), driver, entities: [SampleSchema], extensions: [] });
}

/** One callback-style call on a connection of node-sqlite3's own, beside the ORM's. */
function rawQuery<T>(
  file: string,
  call: (db: sqlite3.Database, done: (error: Error | null, result?: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (opened) => {
      if (opened) return reject(opened);
      call(db, (error, result) => db.close(() => (error ? reject(error) : resolve(result as T))));
    });
  });
}

/** Every stored value with its SQLite storage class, read beside the ORM. */
function stored(name: string): Promise<unknown[]> {
  const select = COLUMNS.map((c) => `${c}, typeof(${c}) as ${c}_type`).join(', ');
  return rawQuery(join(dir, `${name}.sqlite`), (db, done) =>
    db.all(`select ${select} from samples order by id`, done),
  );
}

async function writeEverything(orm: MikroORM): Promise<void> {
  const em = orm.em.fork();
  em.create(SampleSchema, sample('s1', "plain 'quoted' ? label"));
  em.create(SampleSchema, { ...sample('s2', 'second'), note: 'a note', seenAtAny: null, active: false });
  await em.flush();
  const s2 = await em.findOneOrFail(SampleSchema, { id: 's2', label: { $in: ['second', "x'y"] } });
  s2.seenAt = new Date('2030-01-01T00:00:00.000Z');
  s2.settings = { changed: true };
  s2.activeText = true;
  s2.large = -(2 ** 41);
  await em.flush();
  await em.nativeUpdate(SampleSchema, { id: 's1', active: true }, { note: 'native', ratio: 1e21 });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ds-store-driver-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('The SQLite store driver', () => {
  it('stores every value exactly as the stock SQLite driver stores it', async () => {
    const stock = await open('stock', SqliteDriver);
    const store = await open('store', SqliteStoreDriver);
    try {
      await writeEverything(stock);
      await writeEverything(store);
    } finally {
      await stock.close(true);
      await store.close(true);
    }
    const before = await stored('stock');
    expect(before).toHaveLength(2);
    expect(before[0]).toMatchObject({
      seen_at: String(Date.parse('2026-11-26T10:15:30.123Z')),
      seen_at_type: 'text',
    });
    expect(await stored('store')).toEqual(before);
  });

  it('stores, finds and updates strings holding a NUL byte whole', async () => {
    const orm = await open('nul', SqliteStoreDriver);
    const label = 'before\u0000after';
    try {
      const em = orm.em.fork();
      em.create(SampleSchema, { ...sample('n1', label), settings: { k: 'v\u0000w' }, tags: ['x\u0000'] });
      await em.flush();
      const found = await orm.em.fork().findOneOrFail(SampleSchema, { label: { $in: [label, 'other'] } });
      expect(found).toMatchObject({ id: 'n1', label, settings: { k: 'v\u0000w' }, tags: ['x\u0000'] });
      await orm.em.fork().nativeUpdate(SampleSchema, { label }, { note: '\u0000' });
      const rows = await orm.em
        .getConnection()
        .execute('select label, note from samples where label = ?', [label]);
      expect(rows).toEqual([{ label, note: '\u0000' }]);
    } finally {
      await orm.close(true);
    }
    const hex = await rawQuery(join(dir, 'nul.sqlite'), (db, done) =>
      db.get('select hex(label) as h, typeof(label) as t from samples', done),
    );
    expect(hex).toEqual({ h: Buffer.from(label).toString('hex').toUpperCase(), t: 'text' });
  });

  it('keeps identifier placeholders and literal question marks beside a NUL string', async () => {
    const orm = await open('marks', SqliteStoreDriver);
    try {
      const connection = orm.em.getConnection();
      expect(
        await connection.execute('select count(*) as n, ? as v from samples where ?? = ?', [
          'a\u0000b',
          'label',
          'x',
        ]),
      ).toEqual([{ n: 0, v: 'a\u0000b' }]);
      expect(await connection.execute("select '\\?' as q, ? as v", ["it's"])).toEqual([
        { q: '?', v: "it's" },
      ]);
    } finally {
      await orm.close(true);
    }
  });
});
