import sql from 'mssql';
import { mssqlRecord } from '../../../src/modules/connectors/drivers/mssql-cells';
import { sqlCell } from '../../../src/modules/connectors/drivers/sql-common';
import { DeclaredText } from '../../../src/modules/connectors/formats/records';
import { ValueClassifier } from '../../../src/modules/datasets/value-kinds';

/** The type and value a cell becomes in a dataset column. */
function stored(cell: unknown): [kind: string, value: unknown] {
  const classifier = new ValueClassifier();
  const value = classifier.convert(cell);
  const kinds: Record<number, string> = { 0: 'null', 1: 'integer', 2: 'number', 4: 'string', 8: 'boolean' };
  Object.assign(kinds, { 16: 'date', 32: 'timestamp', 64: 'string/integer', 128: 'string/decimal' });
  return [kinds[classifier.kind], value];
}

/** The cells the SQL drivers without a server on this machine hand to the dataset (docs/datasets.md). */
describe('SQL cells of the other drivers', () => {
  it.each([
    ['an instant (a driver Date)', new Date('2026-11-02T01:00:00+05:30'), '2026-11-01T19:30:00.000Z'],
    ['a 64-bit integer within 2^53', 42n, 42],
    ['a 64-bit integer beyond 2^53', 9007199254740993n, '9007199254740993'],
    ['a negative one beyond -2^53', -9007199254740993n, '-9007199254740993'],
    ["a decimal as the driver's text", '99999999999999.9999990000', '99999999999999.9999990000'],
    ['bytes', Buffer.from([0, 255]), new DeclaredText('AP8=')],
    ['NaN', Number.NaN, 'NaN'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['an object (JSON, a struct)', { n: 1 }, new DeclaredText('{"n":1}')],
    ['an empty string', '', ''],
    ['null', null, null],
  ])('%s', (_, value, cell) => {
    expect(sqlCell(value)).toEqual(cell);
  });

  it('a string of a column declared text stays text whatever it looks like; a typed value is read by its shape', () => {
    expect(['123', '2026-01-02', 'true', '1.5'].map((text) => stored(sqlCell(text, false)))).toEqual([
      ['string', '123'],
      ['string', '2026-01-02'],
      ['string', 'true'],
      ['string', '1.5'],
    ]);
    expect(['123', '2026-01-02', '9007199254740993'].map((text) => stored(sqlCell(text)))).toEqual([
      ['integer', 123],
      ['date', '2026-01-02'],
      ['string/integer', '9007199254740993'],
    ]);
    expect(stored(sqlCell(Buffer.from('123')))).toEqual(['string', 'MTIz']);
    expect(JSON.stringify(sqlCell('123', false))).toBe('"123"');
  });

  describe('SQL Server (tedious, useUTC)', () => {
    const columns = {
      d: { type: sql.Date },
      t: { type: sql.Time },
      dt2: { type: sql.DateTime2 },
      dto: { type: sql.DateTimeOffset },
      big: { type: sql.BigInt },
    };

    it('a DATE stays a date and a TIME a time, in any host zone', () => {
      const row = {
        d: new Date(Date.UTC(2026, 10, 2)),
        t: new Date(Date.UTC(1970, 0, 1, 10, 30, 0, 250)),
        dt2: new Date(Date.UTC(2026, 10, 2, 10, 0, 0, 123)),
        dto: new Date('2026-11-02T00:30:00+13:45'),
        big: '9007199254740993',
      };
      expect(mssqlRecord(row, columns, sql)).toEqual({
        d: '2026-11-02',
        t: '10:30:00.250',
        dt2: '2026-11-02T10:00:00.123Z',
        dto: '2026-11-01T10:45:00.000Z',
        big: '9007199254740993',
      });
    });

    it('a DECIMAL of at most 15 significant digits is kept exactly; a longer one stops the ingest naming its column', () => {
      const decimals = {
        price: { type: sql.Decimal, scale: 2 },
        amount: { type: sql.Numeric, scale: 10 },
        cash: { type: sql.Money },
      };
      expect(
        mssqlRecord({ price: 1234.5, amount: 12345.0000000001, cash: 922337203.5807 }, decimals, sql),
      ).toEqual({
        price: 1234.5,
        amount: 12345.0000000001,
        cash: 922337203.5807,
      });
      expect(() => mssqlRecord({ price: Number('99999999999999.99') }, decimals, sql)).toThrow(
        expect.objectContaining({
          errorType: 'invalid_payload',
          message: expect.stringContaining('"price"'),
        }),
      );
      expect(() => mssqlRecord({ amount: 123456 + 1e-10 }, decimals, sql)).toThrow(/"amount"/);
    });

    it('NULL stays null whatever the column type', () => {
      expect(mssqlRecord({ d: null, t: null }, columns, sql)).toEqual({ d: null, t: null });
    });

    it('an NVARCHAR of digits stays text; a BIGINT (text from tedious) keeps its digits', () => {
      const record = mssqlRecord(
        { code: '123', big: '9007199254740993' },
        { code: { type: sql.NVarChar }, big: { type: sql.BigInt } },
        sql,
      );
      expect(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, stored(v)]))).toEqual({
        code: ['string', '123'],
        big: ['string/integer', '9007199254740993'],
      });
    });
  });
});
