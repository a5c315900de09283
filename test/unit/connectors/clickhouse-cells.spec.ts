import {
  clickhouseBaseType,
  ClickhouseTypedRows,
} from '../../../src/modules/connectors/drivers/clickhouse-cells';
import { ParsedRecord } from '../../../src/modules/connectors/formats/records';
import { storedRecord } from '../../support/stored-cell';

/** Lines as a server writes JSONCompactEachRowWithNamesAndTypes with the driver's read settings. */
function wire(
  columns: readonly (readonly [name: string, type: string])[],
  rows: readonly string[],
): string[] {
  return [
    JSON.stringify(columns.map(([name]) => name)),
    JSON.stringify(columns.map(([, type]) => type)),
    ...rows,
  ];
}

/** What the driver does with each line the client parses. */
function records(lines: readonly string[]): ParsedRecord[] {
  const typed = new ClickhouseTypedRows();
  const out: ParsedRecord[] = [];
  for (const line of lines) {
    const record = typed.read(JSON.parse(line) as unknown[]);
    if (record !== undefined) out.push(record);
  }
  return out;
}

describe('ClickHouse cells by declared type', () => {
  const columns = [
    ['d', 'Date'],
    ['d32', 'Date32'],
    ['dt', 'DateTime'],
    ['dt_tz', "DateTime('Asia/Kolkata')"],
    ['dt64', "DateTime64(6, 'Pacific/Chatham')"],
    ['dt64_dst', "Nullable(DateTime64(9, 'America/New_York'))"],
    ['wide', 'Decimal(38, 10)'],
    ['price', 'Decimal(12, 2)'],
    ['u64', 'UInt64'],
    ['i64', 'Int64'],
    ['i128', 'Int128'],
    ['u256', 'UInt256'],
    ['i32', 'Int32'],
    ['f64', 'Float64'],
    ['f32', 'Float32'],
    ['ok', 'Bool'],
    ['id', 'UUID'],
    ['code', 'String'],
    ['fixed', 'FixedString(3)'],
    ['label', 'LowCardinality(Nullable(String))'],
    ['level', "Enum8('low' = 1, 'high' = 2)"],
    ['ip4', 'IPv4'],
    ['ip6', 'IPv6'],
    ['ids', 'Array(Int64)'],
    ['days', 'Array(Nullable(Date))'],
    ['prices', 'Map(String, Decimal(38, 10))'],
    ['pair', 'Tuple(a UInt8, b String)'],
    ['doc', 'JSON'],
    ['total', 'SimpleAggregateFunction(sum, UInt64)'],
  ] as const;
  // ISO DateTime is UTC whatever the column's zone: Kolkata 2026-11-02 01:00 is 2026-11-01 19:30Z; Chatham
  // 2026-11-02 00:30 (+13:45) is 2026-11-01 10:45Z; New York 2026-11-01 01:30 EDT (before the fall-back) is 05:30Z.
  const lines = wire(columns, [
    JSON.stringify([
      '2026-11-02',
      '1900-01-01',
      '2026-11-02T10:00:00Z',
      '2026-11-01T19:30:00Z',
      '2026-11-01T10:45:00.123456Z',
      '2026-11-01T05:30:00.123456789Z',
      '99999999999999.9999990000',
      '1234.50',
      '18446744073709551615',
      '9007199254740993',
      '-170141183460469231731687303715884105728',
      '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      -2147483648,
      'nan',
      0.1,
      true,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      '00123',
      'ab\u0000',
      '2026-01-02',
      'high',
      '127.0.0.1',
      '::1',
      ['9007199254740993', '1'],
      ['2026-11-02', null],
      { k: '1.5000000000' },
      { a: 1, b: 'x' },
      { n: '9007199254740993', s: 'x' },
      '42',
    ]),
    JSON.stringify([
      '2149-06-06',
      '2299-12-31',
      '1970-01-01T00:00:00Z',
      '2026-03-29T01:00:00Z',
      '2026-04-05T02:00:00.000000Z',
      null,
      '-0.0000000001',
      '0.00',
      '0',
      '-9007199254740993',
      '42',
      '0',
      0,
      '-inf',
      '+inf',
      false,
      '00000000-0000-0000-0000-000000000000',
      '',
      '\u0000\u0000\u0000',
      null,
      'low',
      '0.0.0.0',
      '2001:db8::ff00:42:8329',
      [],
      [],
      {},
      { a: 0, b: '' },
      {},
      '9007199254740993',
    ]),
  ]);

  it('keeps every value exact and typed by its column, whatever the host zone', () => {
    const [first, second] = records(lines).map(storedRecord);
    expect(first).toEqual({
      d: ['date', '2026-11-02'],
      d32: ['date', '1900-01-01'],
      dt: ['timestamp', '2026-11-02T10:00:00.000Z'],
      dt_tz: ['timestamp', '2026-11-01T19:30:00.000Z'],
      dt64: ['timestamp', '2026-11-01T10:45:00.123456Z'],
      dt64_dst: ['timestamp', '2026-11-01T05:30:00.123456789Z'],
      wide: ['string/decimal', '99999999999999.9999990000'],
      price: ['number', 1234.5],
      u64: ['string/integer', '18446744073709551615'],
      i64: ['string/integer', '9007199254740993'],
      i128: ['string/integer', '-170141183460469231731687303715884105728'],
      u256: [
        'string/integer',
        '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      ],
      i32: ['integer', -2147483648],
      f64: ['string', 'NaN'],
      f32: ['number', 0.1],
      ok: ['boolean', 1],
      id: ['string', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      code: ['string', '00123'],
      fixed: ['string', 'ab\u0000'],
      label: ['string', '2026-01-02'],
      level: ['string', 'high'],
      ip4: ['string', '127.0.0.1'],
      ip6: ['string', '::1'],
      ids: ['string', '["9007199254740993","1"]'],
      days: ['string', '["2026-11-02",null]'],
      prices: ['string', '{"k":"1.5000000000"}'],
      pair: ['string', '{"a":1,"b":"x"}'],
      doc: ['string', '{"n":"9007199254740993","s":"x"}'],
      total: ['integer', 42],
    });
    expect(second).toEqual({
      d: ['date', '2149-06-06'],
      d32: ['date', '2299-12-31'],
      dt: ['timestamp', '1970-01-01T00:00:00.000Z'],
      dt_tz: ['timestamp', '2026-03-29T01:00:00.000Z'],
      dt64: ['timestamp', '2026-04-05T02:00:00.000Z'],
      dt64_dst: ['null', null],
      wide: ['number', -1e-10],
      price: ['number', 0],
      u64: ['integer', 0],
      i64: ['string/integer', '-9007199254740993'],
      i128: ['integer', 42],
      u256: ['integer', 0],
      i32: ['integer', 0],
      f64: ['string', '-Infinity'],
      f32: ['string', 'Infinity'],
      ok: ['boolean', 0],
      id: ['string', '00000000-0000-0000-0000-000000000000'],
      code: ['string', ''],
      fixed: ['string', '\u0000\u0000\u0000'],
      label: ['null', null],
      level: ['string', 'low'],
      ip4: ['string', '0.0.0.0'],
      ip6: ['string', '2001:db8::ff00:42:8329'],
      ids: ['string', '[]'],
      days: ['string', '[]'],
      prices: ['string', '{}'],
      pair: ['string', '{"a":0,"b":""}'],
      doc: ['string', '{}'],
      total: ['string/integer', '9007199254740993'],
    });
  });

  it('reads -nan and non-BMP text as every other source does', () => {
    const [record] = records(
      wire(
        [
          ['f', 'Nullable(Float64)'],
          ['s', 'String'],
        ],
        [JSON.stringify(['-nan', '😀 𝄞'])],
      ),
    ).map(storedRecord);
    expect(record).toEqual({ f: ['string', 'NaN'], s: ['string', '😀 𝄞'] });
  });

  it('gives no record for the two header rows, and keeps a column named __proto__ as a column', () => {
    const out = records(wire([['__proto__', 'String']], [JSON.stringify(['x'])]));
    expect(out).toHaveLength(1);
    expect(Object.keys(out[0])).toEqual(['__proto__']);
    expect(storedRecord(out[0])).toEqual({ ['__proto__']: ['string', 'x'] });
  });

  it.each([
    ['LowCardinality(Nullable(String))', 'String'],
    ["Nullable(DateTime64(3, 'Asia/Kolkata'))", 'DateTime64'],
    ['SimpleAggregateFunction(sum, Nullable(Decimal(38, 10)))', 'Decimal'],
    ['Array(Nullable(Date))', 'Array'],
    ["DateTime('UTC')", 'DateTime'],
  ])('%s is read as %s', (type, base) => {
    expect(clickhouseBaseType(type)).toBe(base);
  });
});
