import { rmSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { TextTable } from '../../src/modules/connectors/connectors.types';
import { DatasetFileWriter } from '../../src/modules/datasets/dataset-file-writer';
import { DistinctCounter } from '../../src/modules/datasets/distinct-counter';
import {
  KIND_INTEGER,
  KIND_NUMBER,
  numberShape,
  ValueClassifier,
  typeOfKinds,
} from '../../src/modules/datasets/value-kinds';
import { makeTempDir } from '../support/test-app';
import { datasetColumnTypes, readDatasetFile, TEST_BUILD } from '../support/dataset-files';

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
    ['2024-02-29T10:00:00Z', ['2024-02-29T10:00:00.000Z', 'timestamp']],
    ['2024-02-29 10:00', ['2024-02-29T10:00:00.000Z', 'timestamp']],
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

  it('treats null and undefined as null, and empty text as text', () => {
    for (const value of [null, undefined]) {
      expect(classifier.convert(value)).toBeNull();
      expect(classifier.kind).toBe(0);
    }
    expect(classifier.convert('')).toBe('');
    expect(typeOfKinds(classifier.kind)).toBe('string');
  });

  it('reads text in place exactly as convert reads the same text', () => {
    const inPlace = new ValueClassifier();
    // An empty cell of a text table is null, an empty string of a typed source is text: not compared here.
    const texts = [
      '0',
      '-0',
      '-0.0',
      '7',
      '007',
      '0.5',
      '.5',
      '-.5',
      '.',
      '-',
      '5.',
      '1.50',
      '1e3',
      '+5',
      '999999999999999',
      '9999999999999999',
      '12345678901234.5',
      '1234567890123.45',
      '0.000000000000001',
      '0.0000000000000001',
      '2024-02-29',
      'true',
      'West',
    ];
    // Decimals as generators write them: every digit count, rounded at every precision.
    let x = 42;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const value = (x / 2147483648) * 10 ** (i % 12) * (i % 3 === 0 ? -1 : 1);
      texts.push(value.toFixed(i % 8), String(value), String(Math.round(value)));
    }
    const disagreements = texts.filter((text) => {
      const padded = `ab${text}cd`;
      const got = inPlace.convertRange(padded, 2, 2 + text.length);
      const gotKind = inPlace.kind;
      const expected = classifier.convert(text);
      return !Object.is(got, expected) || gotKind !== classifier.kind;
    });
    expect(disagreements).toEqual([]);
  });
});

describe('number shapes', () => {
  // The grammar the scanner implements, as regular expressions: the scanner must agree with them on every string.
  const INTEGER_TEXT = /^-?(?:0|[1-9]\d{0,14})$/;
  const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)?(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
  const DIGITS_ONLY = /^-?\d*$/;
  const expected = (text: string): number => {
    if (INTEGER_TEXT.test(text)) return KIND_INTEGER;
    if (NUMBER_TEXT.test(text) && !DIGITS_ONLY.test(text)) return KIND_NUMBER;
    return 0;
  };

  it('agrees with the regular grammar on every short string over its alphabet', () => {
    const alphabet = ['0', '1', '9', '-', '+', '.', 'e', 'E', 'x'];
    const strings: string[] = [''];
    for (let length = 1; length <= 5; length++) {
      for (const prefix of strings.filter((s) => s.length === length - 1)) {
        for (const char of alphabet) strings.push(prefix + char);
      }
    }
    const disagreements = strings.filter((s) => s !== '' && numberShape(s) !== expected(s));
    expect(strings.length).toBeGreaterThan(60_000);
    expect(disagreements).toEqual([]);
  });

  it.each([
    ['999999999999999', KIND_INTEGER],
    ['-999999999999999', KIND_INTEGER],
    ['9999999999999999', 0],
    ['12345678901234567890', 0],
    ['1.25e-10', KIND_NUMBER],
    ['00.5', 0],
  ])('%s', (text, kind) => {
    expect(numberShape(text)).toBe(kind);
    expect(expected(text)).toBe(kind);
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

  it('writes typed rows with a row ordinal, profiles columns and leaves a read-only file', async () => {
    const path = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(path, TEST_BUILD);
    await writer.addBatch([
      { id: '1', region: 'West', revenue: '10.5', day: '2024-01-01', ok: 'true' },
      { id: '2', region: 'East', revenue: '3', day: '2024-01-03', ok: 'false' },
    ]);
    await writer.addBatch([
      { id: '3', region: '', revenue: '7.25', day: '2024-01-02', ok: 'true', extra: 'late' },
    ]);
    const written = await writer.finish();
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
    expect(written.columns[1].nullCount).toBe(0);
    expect(written.columns[4].sampleValues).toEqual([true, false]);
    expect(written.columns[5].nullCount).toBe(2);
    expect(existsSync(`${path}.partial`)).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o400);

    expect(await readDatasetFile(path, 'select * from rows order by _row')).toEqual([
      { _row: 1, id: 1, region: 'West', revenue: 10.5, day: '2024-01-01', ok: 1, extra: null },
      { _row: 2, id: 2, region: 'East', revenue: 3, day: '2024-01-03', ok: 0, extra: null },
      { _row: 3, id: 3, region: '', revenue: 7.25, day: '2024-01-02', ok: 1, extra: 'late' },
    ]);
    expect(await datasetColumnTypes(path)).toEqual({
      _row: 'BIGINT',
      id: 'BIGINT',
      region: 'VARCHAR',
      revenue: 'DECIMAL(18,2)',
      day: 'VARCHAR',
      ok: 'BOOLEAN',
      // One distinct value in three rows: stored as ENUM codes (dataset-store-layout).
      extra: "ENUM('late')",
    });
    expect(await readDatasetFile(path, 'select * from _ds_meta')).toEqual([{ key: 'layout', value: '1' }]);
  });

  it('keeps order and values across many appends and a column that appears late', async () => {
    const path = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(path, TEST_BUILD);
    for (let start = 0; start < 40_000; start += 1000) {
      await writer.addBatch(
        Array.from({ length: 1000 }, (_, i) => ({
          n: String(start + i),
          half: String(start + i + 0.5),
          label: `row ${start + i}`,
          empty: (start + i) % 3 === 0 ? '' : 'x',
        })),
      );
    }
    await writer.addBatch([{ n: '40000', late: 'yes' }]);
    const written = await writer.finish();
    expect(written.rowCount).toBe(40_001);
    expect(written.columns.map((c) => [c.name, c.type, c.nullCount])).toEqual([
      ['n', 'integer', 0],
      ['half', 'number', 1],
      ['label', 'string', 1],
      ['empty', 'string', 1],
      ['late', 'string', 40_000],
    ]);
    const [mismatches] = await readDatasetFile(
      path,
      `select count(*) as c from rows where _row <= 40000 and (_row <> n + 1 or half <> n + 0.5
         or label <> 'row ' || n or (empty = '') <> (n % 3 = 0))`,
    );
    expect(mismatches.c).toBe(0);
    expect(await datasetColumnTypes(path)).toMatchObject({ n: 'BIGINT', half: 'DECIMAL(18,1)' });
    expect(await readDatasetFile(path, 'select count(half) as c from rows')).toEqual([{ c: 40_000 }]);
    expect(await readDatasetFile(path, 'select _row, n, late from rows where late is not null')).toEqual([
      { _row: 40_001, n: 40_000, late: 'yes' },
    ]);
  });

  it('widens a column that mixes numbers and text to text', async () => {
    const path = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(path, TEST_BUILD);
    await writer.addBatch([{ code: '10' }, { code: '2' }, { code: 'A7' }]);
    const written = await writer.finish();
    expect(written.columns[0]).toMatchObject({ type: 'string', min: '10', max: 'A7' });
    expect(await readDatasetFile(path, 'select code, typeof(code) as t from rows order by _row')).toEqual([
      { code: '10', t: 'VARCHAR' },
      { code: '2', t: 'VARCHAR' },
      { code: 'A7', t: 'VARCHAR' },
    ]);
  });

  it('gives colliding, empty and reserved names distinct column names', async () => {
    const path = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(path, TEST_BUILD);
    await writer.addBatch([{ Name: 'a', name: 'b', '': 'c', _row: 'd', 'a"b': 'e' }]);
    expect((await writer.finish()).columns.map((c) => c.name)).toEqual([
      'Name',
      'name_2',
      'column_3',
      '_row_2',
      'a"b',
    ]);
  });

  it('stores a text table exactly as the same rows given as records', async () => {
    const table = (columns: string[], rows: (string | undefined)[][]): TextTable => {
      const ends: number[] = [];
      let text = '';
      for (const row of rows) {
        for (let i = 0; i < columns.length; i++) {
          text += row[i] ?? '';
          ends.push(text.length);
        }
      }
      return { columns, rows: rows.length, text, ends: Uint32Array.from(ends) };
    };
    const tables = [
      table(
        ['id', 'day', 'code', 'price', 'ok'],
        [
          ['1', '2024-01-01', '10', '2.50', 'TRUE'],
          ['2', '', 'A7', '-0.125', 'false'],
          ['3', '2024-01-03', '007', '1e3', ''],
        ],
      ),
      // a later batch with a new column, and a name given twice (its last cell wins, as in a record)
      table(
        ['id', 'day', 'code', 'price', 'ok', 'late', 'id'],
        [['4', '2024-01-04', '', '7', 'true', 'x', '40']],
      ),
    ];
    const records = [
      [
        { id: '1', day: '2024-01-01', code: '10', price: '2.50', ok: 'TRUE' },
        { id: '2', day: null, code: 'A7', price: '-0.125', ok: 'false' },
        { id: '3', day: '2024-01-03', code: '007', price: '1e3', ok: null },
      ],
      [{ id: '40', day: '2024-01-04', code: null, price: '7', ok: 'true', late: 'x' }],
    ];
    const write = async (name: string, batches: (TextTable | Record<string, unknown>[])[]) => {
      const path = join(dir, name);
      const writer = await DatasetFileWriter.create(path, TEST_BUILD);
      for (const batch of batches) await writer.addBatch(batch);
      const written = await writer.finish();
      const rows = await readDatasetFile(path, 'select *, typeof(price) as t from rows order by _row');
      return { written, rows };
    };
    const fromTables = await write('tables.duckdb', tables);
    const fromRecords = await write('records.duckdb', records);
    expect(fromTables).toEqual(fromRecords);
    expect(fromTables.rows[3]).toEqual({
      _row: 4,
      id: 40,
      day: '2024-01-04',
      code: null,
      price: 7,
      ok: 1,
      late: 'x',
      t: 'DECIMAL(18,3)',
    });
    expect(fromTables.written.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'integer'],
      ['day', 'date'],
      ['code', 'string'],
      ['price', 'number'],
      ['ok', 'boolean'],
      ['late', 'string'],
    ]);
  });

  it('leaves nothing behind when aborted', async () => {
    const path = join(dir, 'd.duckdb');
    const writer = await DatasetFileWriter.create(path, TEST_BUILD);
    await writer.addBatch([{ a: 1 }]);
    await writer.abort();
    expect(existsSync(`${path}.partial`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});
