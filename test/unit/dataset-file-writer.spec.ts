import { rmSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DatasetFileWriter } from '../../src/modules/datasets/dataset-file-writer';
import { DistinctCounter } from '../../src/modules/datasets/distinct-counter';
import { ValueClassifier, typeOfKinds } from '../../src/modules/datasets/value-kinds';
import { makeTempDir } from '../support/test-app';

describe('value classification', () => {
  const classifier = new ValueClassifier();
  const kindOf = (value: unknown) => {
    const stored = classifier.convert(value);
    return [stored, typeOfKinds(classifier.kind)];
  };

  it.each([
    ['42', [42, 'integer']],
    ['-7', [-7, 'integer']],
    ['007', ['007', 'string']],
    ['1.50', [1.5, 'number']],
    ['.5', [0.5, 'number']],
    ['1e3', [1000, 'number']],
    ['12345678901234567890', ['12345678901234567890', 'string']],
    ['2024-02-29', ['2024-02-29', 'date']],
    ['2024-13-01', ['2024-13-01', 'string']],
    ['2024-02-29T10:00:00Z', ['2024-02-29T10:00:00Z', 'timestamp']],
    ['2024-02-29 10:00', ['2024-02-29 10:00', 'timestamp']],
    ['TRUE', [1, 'boolean']],
    ['false', [0, 'boolean']],
    ['-', ['-', 'string']],
    ['West', ['West', 'string']],
    [3.25, [3.25, 'number']],
    [true, [1, 'boolean']],
    [BigInt(5), [5, 'integer']],
    [new Date('2024-01-02T03:04:05Z'), ['2024-01-02T03:04:05.000Z', 'timestamp']],
    [{ a: 1 }, ['{"a":1}', 'string']],
  ])('%p', (value, expected) => {
    expect(kindOf(value)).toEqual(expected);
  });

  it('treats empty text, null and undefined as null', () => {
    for (const value of ['', null, undefined]) {
      expect(classifier.convert(value)).toBeNull();
      expect(classifier.kind).toBe(0);
    }
  });
});

describe('distinct counter', () => {
  it('is exact for few values and close for many', () => {
    const few = new DistinctCounter();
    for (let i = 0; i < 3000; i++) few.add(i % 1000);
    expect(few.count()).toBe(1000);
    expect(few.isEstimate).toBe(false);
    const many = new DistinctCounter();
    for (let i = 0; i < 200_000; i++) many.add(`key-${i}`);
    expect(many.isEstimate).toBe(true);
    expect(Math.abs(many.count() - 200_000) / 200_000).toBeLessThan(0.03);
  });
});

describe('dataset file writer', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('ds-writer-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes typed rows with a row ordinal, profiles columns and leaves a read-only file', () => {
    const path = join(dir, 'd.sqlite');
    const writer = DatasetFileWriter.create(path);
    writer.addBatch([
      { id: '1', region: 'West', revenue: '10.5', day: '2024-01-01', ok: 'true' },
      { id: '2', region: 'East', revenue: '3', day: '2024-01-03', ok: 'false' },
    ]);
    writer.addBatch([{ id: '3', region: '', revenue: '7.25', day: '2024-01-02', ok: 'true', extra: 'late' }]);
    const written = writer.finish();
    expect(written.rowCount).toBe(3);
    expect(written.columns.map((c) => [c.name, c.type, c.role])).toEqual([
      ['id', 'integer', 'id'],
      ['region', 'string', 'dimension'],
      ['revenue', 'number', 'measure'],
      ['day', 'date', 'time'],
      ['ok', 'boolean', 'dimension'],
      ['extra', 'string', 'dimension'],
    ]);
    const revenue = written.columns[2];
    expect([revenue.min, revenue.max, revenue.nullCount, revenue.distinctCount]).toEqual([3, 10.5, 0, 3]);
    expect(written.columns[1].nullCount).toBe(1);
    expect(written.columns[4].sampleValues).toEqual([true, false]);
    expect(written.columns[5].nullCount).toBe(2);
    expect(existsSync(`${path}.partial`)).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o400);

    const db = new Database(path, { readonly: true });
    expect(db.prepare('select * from data order by _row').all()).toEqual([
      { _row: 1, id: 1, region: 'West', revenue: 10.5, day: '2024-01-01', ok: 1, extra: null },
      { _row: 2, id: 2, region: 'East', revenue: 3, day: '2024-01-03', ok: 0, extra: null },
      { _row: 3, id: 3, region: null, revenue: 7.25, day: '2024-01-02', ok: 1, extra: 'late' },
    ]);
    db.close();
  });

  it('widens a column that mixes numbers and text to text', () => {
    const path = join(dir, 'd.sqlite');
    const writer = DatasetFileWriter.create(path);
    writer.addBatch([{ code: '10' }, { code: '2' }, { code: 'A7' }]);
    const written = writer.finish();
    expect(written.columns[0]).toMatchObject({ type: 'string', min: '10', max: 'A7' });
    const db = new Database(path, { readonly: true });
    expect(db.prepare('select code, typeof(code) as t from data order by _row').all()).toEqual([
      { code: '10', t: 'text' },
      { code: '2', t: 'text' },
      { code: 'A7', t: 'text' },
    ]);
    db.close();
  });

  it('gives colliding, empty and reserved names distinct column names', () => {
    const path = join(dir, 'd.sqlite');
    const writer = DatasetFileWriter.create(path);
    writer.addBatch([{ Name: 'a', name: 'b', '': 'c', _row: 'd', 'a"b': 'e' }]);
    expect(writer.finish().columns.map((c) => c.name)).toEqual([
      'Name',
      'name_2',
      'column_3',
      '_row_2',
      'a"b',
    ]);
  });

  it('leaves nothing behind when aborted', () => {
    const path = join(dir, 'd.sqlite');
    const writer = DatasetFileWriter.create(path);
    writer.addBatch([{ a: 1 }]);
    writer.abort();
    expect(existsSync(`${path}.partial`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});
