import sql from 'mssql';
import SfTimestamp from 'snowflake-sdk/dist/lib/connection/result/sf_timestamp';
import { mssqlRecord } from '../../../src/modules/connectors/drivers/mssql-cells';
import { snowflakeRecord, SnowflakeColumn } from '../../../src/modules/connectors/drivers/snowflake-cells';
import { sqlCell } from '../../../src/modules/connectors/drivers/sql-common';
import { DeclaredText } from '../../../src/modules/connectors/formats/records';
import { stored, storedRecord } from '../../support/stored-cell';

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
      expect(storedRecord(record)).toEqual({
        code: ['string', '123'],
        big: ['string/integer', '9007199254740993'],
      });
    });
  });

  describe('Snowflake (snowflake-sdk values)', () => {
    const column = (name: string, type: string, scale = 0): SnowflakeColumn => ({
      getName: () => name,
      getType: () => type,
      getScale: () => scale,
    });
    const columns = new Map(
      [
        column('d', 'date'),
        column('t', 'time', 3),
        column('ntz', 'timestamp_ntz', 9),
        column('ltz', 'timestamp_ltz', 6),
        column('tz', 'timestamp_tz', 3),
        column('code', 'text'),
        column('n', 'fixed'),
      ].map((c) => [c.getName(), c] as const),
    );
    // The SDK's own value classes, built as its converters build them from the wire (epoch seconds, nanoseconds).
    const sfDate = (seconds: number, nanos: number, scale: number, zone: string | number): unknown =>
      new SfTimestamp(seconds, nanos, scale, zone, 'YYYY-MM-DD HH24:MI:SS.FF9 TZHTZM').toSfDate();
    const row = {
      d: sfDate(Date.UTC(2026, 10, 2) / 1000, 0, 0, 'UTC'),
      t: new SfTimestamp(37800, 250000000, 3, 'UTC', 'HH24:MI:SS.FF3').toSfTime(),
      ntz: sfDate(Date.UTC(2026, 10, 2, 10) / 1000, 123456789, 9, 'UTC'),
      // 2026-11-01 01:30 at -04:00 (New York before the DST change) and 2026-11-02 00:30 at +13:45 (Chatham).
      ltz: sfDate(Date.UTC(2026, 10, 1, 5, 30) / 1000, 123456000, 6, 'America/New_York'),
      tz: sfDate(Date.UTC(2026, 10, 1, 10, 45) / 1000, 0, 3, 13 * 60 + 45),
      code: '2026-01-02',
      n: 42,
    };

    it('DATE stays a date, TIME a time, timestamps keep their instant and digits, in any host zone', () => {
      const record = snowflakeRecord(row, columns);
      expect(storedRecord(record)).toEqual({
        d: ['date', '2026-11-02'],
        t: ['string', '10:30:00.250'],
        ntz: ['timestamp', '2026-11-02T10:00:00.123456789Z'],
        ltz: ['timestamp', '2026-11-01T05:30:00.123456Z'],
        tz: ['timestamp', '2026-11-01T10:45:00.000Z'],
        code: ['string', '2026-01-02'],
        n: ['integer', 42],
      });
    });

    it('NULL stays null, and a column the result does not describe is read as before', () => {
      expect(snowflakeRecord({ d: null, t: null, other: '7' }, columns)).toEqual({
        d: null,
        t: null,
        other: '7',
      });
    });
  });
});
