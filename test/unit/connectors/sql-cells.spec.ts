import sql from 'mssql';
import { mssqlRecord } from '../../../src/modules/connectors/drivers/mssql-cells';
import { sqlCell } from '../../../src/modules/connectors/drivers/sql-common';

/** The cells the SQL drivers without a server on this machine hand to the dataset (docs/datasets.md). */
describe('SQL cells of the other drivers', () => {
  it.each([
    ['an instant (a driver Date)', new Date('2026-11-02T01:00:00+05:30'), '2026-11-01T19:30:00.000Z'],
    ['a 64-bit integer within 2^53', 42n, 42],
    ['a 64-bit integer beyond 2^53', 9007199254740993n, '9007199254740993'],
    ['a negative one beyond -2^53', -9007199254740993n, '-9007199254740993'],
    ["a decimal as the driver's text", '99999999999999.9999990000', '99999999999999.9999990000'],
    ['bytes', Buffer.from([0, 255]), 'AP8='],
    ['NaN', Number.NaN, 'NaN'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['an object (JSON, a struct)', { n: 1 }, '{"n":1}'],
    ['an empty string', '', ''],
    ['null', null, null],
  ])('%s', (_, value, cell) => {
    expect(sqlCell(value)).toEqual(cell);
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
  });
});
