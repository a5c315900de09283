import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, Options, SqliteDriver } from '@mikro-orm/sqlite';
import { ormOptions } from '../../src/common/database/orm';
import { BoundSqliteDriver } from '../../src/common/database/bound-sqlite';

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
  const raw = new Database(file);
  raw.exec(DDL);
  raw.close();
  return MikroORM.init({ ...ormOptions(file), driver, entities: [SampleSchema], extensions: [] });
}

/** Every stored value with its SQLite storage class, read beside the ORM. */
function stored(name: string): unknown[] {
  const raw = new Database(join(dir, `${name}.sqlite`), { readonly: true });
  try {
    const select = COLUMNS.map((c) => `${c}, typeof(${c}) as ${c}_type`).join(', ');
    return raw.prepare(`select ${select} from samples order by id`).all();
  } finally {
    raw.close();
  }
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
  dir = mkdtempSync(join(tmpdir(), 'ds-bound-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite parameters bound instead of inlined', () => {
  it('stores every value exactly as the inlining driver stored it', async () => {
    const inlining = await open('inlined', SqliteDriver);
    const binding = await open('bound', BoundSqliteDriver);
    try {
      await writeEverything(inlining);
      await writeEverything(binding);
    } finally {
      await inlining.close(true);
      await binding.close(true);
    }
    const before = stored('inlined');
    expect(before).toHaveLength(2);
    expect(before[0]).toMatchObject({
      seen_at: String(Date.parse('2026-11-26T10:15:30.123Z')),
      seen_at_type: 'text',
    });
    expect(stored('bound')).toEqual(before);
  });

  it('stores, finds and updates strings holding a NUL byte whole', async () => {
    const orm = await open('nul', BoundSqliteDriver);
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
    const raw = new Database(join(dir, 'nul.sqlite'), { readonly: true });
    expect(raw.prepare('select hex(label) as h from samples').get()).toEqual({
      h: Buffer.from(label).toString('hex').toUpperCase(),
    });
    raw.close();
  });

  it('keeps identifier placeholders, and inlines as before when the text keeps a literal question mark', async () => {
    const orm = await open('marks', BoundSqliteDriver);
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
