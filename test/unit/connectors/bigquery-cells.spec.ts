import {
  BigqueryField,
  bigqueryRecord,
  BigqueryWireValue,
} from '../../../src/modules/connectors/drivers/bigquery-cells';
import { ParsedRecord } from '../../../src/modules/connectors/formats/records';
import { storedRecord } from '../../support/stored-cell';

type WireValue = BigqueryWireValue;

/** A jobs.query / getQueryResults page as the REST API sends it (JSON text), turned into records as the driver does. */
function records(fields: readonly BigqueryField[], rows: readonly WireValue[][]): ParsedRecord[] {
  const page = JSON.parse(
    JSON.stringify({ schema: { fields }, rows: rows.map((row) => ({ f: cells(...row) })) }),
  ) as {
    schema: { fields: BigqueryField[] };
    rows: { f: { v: WireValue }[] }[];
  };
  return page.rows.map((row) => bigqueryRecord(row, page.schema.fields));
}

function cells(...values: WireValue[]): { v: WireValue }[] {
  return values.map((v) => ({ v }));
}

describe('BigQuery cells by schema field', () => {
  const fields: (BigqueryField & { rangeElementType?: { type: string } })[] = [
    { name: 'day', type: 'DATE' },
    { name: 'wall', type: 'DATETIME' },
    { name: 'at', type: 'TIMESTAMP' },
    { name: 'clock', type: 'TIME' },
    { name: 'price', type: 'NUMERIC' },
    { name: 'wide', type: 'BIGNUMERIC' },
    { name: 'id', type: 'INTEGER' },
    { name: 'ratio', type: 'FLOAT' },
    { name: 'ok', type: 'BOOLEAN' },
    { name: 'code', type: 'STRING' },
    { name: 'raw', type: 'BYTES' },
    { name: 'doc', type: 'JSON' },
    { name: 'place', type: 'GEOGRAPHY' },
    { name: 'span', type: 'INTERVAL' },
    { name: 'period', type: 'RANGE', rangeElementType: { type: 'DATE' } },
    { name: 'days', type: 'DATE', mode: 'REPEATED' },
    {
      name: 'line',
      type: 'RECORD',
      fields: [
        { name: 'amount', type: 'BIGNUMERIC' },
        { name: 'n', type: 'INTEGER' },
        { name: 'bytes', type: 'BYTES' },
        { name: 'x', type: 'FLOAT' },
        { name: 'on', type: 'DATE' },
      ],
    },
  ];

  // TIMESTAMP is microseconds since the epoch (the SDK asks for formatOptions.useInt64Timestamp): 2026-11-01
  // 05:30:00.123456Z is New York's 01:30 before the fall-back; 10:45Z is Chatham's 00:30 (+13:45) on 11-02.
  const rows: WireValue[][] = [
    [
      '2026-11-02',
      '2026-11-02T10:00:00.123456',
      '1793511000123456',
      '10:30:00.250000',
      '1234.5',
      '99999999999999.99999999999999999999',
      '9007199254740993',
      'NaN',
      'true',
      '00123',
      'AP8=',
      '{"n":9007199254740993}',
      'POINT(1 2)',
      '1-2 3 4:5:6.5',
      '[2026-01-01, UNBOUNDED)',
      cells('2026-11-02', '2026-11-03'),
      { f: cells('0.000000000000000000000000000000000001', '-9007199254740993', 'AP8=', '-Infinity', null) },
    ],
    [
      '0001-01-01',
      '2026-03-08T02:30:00',
      '1793529900000000',
      '23:59:59.999999',
      '0.000000001',
      '-578960446186580977117854925043439539266.34992332820282019728792003956564819968',
      '42',
      'Infinity',
      'false',
      '',
      '',
      '{}',
      'POINT(-122.4 37.8)',
      '0-0 0 0:0:0',
      '[2026-01-01, 2026-02-01)',
      [],
      null,
    ],
    [
      '9999-12-31',
      '2026-11-01T01:30:00',
      '-1',
      null,
      null,
      null,
      '-9007199254740991',
      '1.5',
      null,
      '😀 𝄞',
      null,
      null,
      null,
      null,
      null,
      [],
      { f: cells('1.5', '2', null, '0.1', '2026-11-02') },
    ],
  ];

  it('keeps every value exact and typed by its field, whatever the host zone', () => {
    const [first, second, third] = records(fields, rows).map(storedRecord);
    expect(first).toEqual({
      day: ['date', '2026-11-02'],
      wall: ['timestamp', '2026-11-02T10:00:00.123456Z'],
      at: ['timestamp', '2026-11-01T05:30:00.123456Z'],
      clock: ['string', '10:30:00.250000'],
      price: ['number', 1234.5],
      wide: ['string/decimal', '99999999999999.99999999999999999999'],
      id: ['string/integer', '9007199254740993'],
      ratio: ['string', 'NaN'],
      ok: ['boolean', 1],
      code: ['string', '00123'],
      raw: ['string', 'AP8='],
      doc: ['string', '{"n":9007199254740993}'],
      place: ['string', 'POINT(1 2)'],
      span: ['string', '1-2 3 4:5:6.5'],
      period: ['string', '[2026-01-01, UNBOUNDED)'],
      days: ['string', '["2026-11-02","2026-11-03"]'],
      line: [
        'string',
        '{"amount":"0.000000000000000000000000000000000001","n":"-9007199254740993","bytes":"AP8=","x":"-Infinity","on":null}',
      ],
    });
    expect(second).toEqual({
      day: ['date', '0001-01-01'],
      wall: ['timestamp', '2026-03-08T02:30:00.000Z'],
      at: ['timestamp', '2026-11-01T10:45:00.000Z'],
      clock: ['string', '23:59:59.999999'],
      price: ['number', 1e-9],
      wide: [
        'string/decimal',
        '-578960446186580977117854925043439539266.34992332820282019728792003956564819968',
      ],
      id: ['integer', 42],
      ratio: ['string', 'Infinity'],
      ok: ['boolean', 0],
      code: ['string', ''],
      raw: ['string', ''],
      doc: ['string', '{}'],
      place: ['string', 'POINT(-122.4 37.8)'],
      span: ['string', '0-0 0 0:0:0'],
      period: ['string', '[2026-01-01, 2026-02-01)'],
      days: ['string', '[]'],
      line: ['null', null],
    });
    expect(third).toEqual({
      day: ['date', '9999-12-31'],
      wall: ['timestamp', '2026-11-01T01:30:00.000Z'],
      at: ['timestamp', '1969-12-31T23:59:59.999999Z'],
      clock: ['null', null],
      price: ['null', null],
      wide: ['null', null],
      id: ['integer', -9007199254740991],
      ratio: ['number', 1.5],
      ok: ['null', null],
      code: ['string', '😀 𝄞'],
      raw: ['null', null],
      doc: ['null', null],
      place: ['null', null],
      span: ['null', null],
      period: ['null', null],
      days: ['string', '[]'],
      line: ['string', '{"amount":"1.5","n":2,"bytes":null,"x":0.1,"on":"2026-11-02"}'],
    });
  });

  it('keeps a column named __proto__ as a column', () => {
    const [record] = records([{ name: '__proto__', type: 'STRING' }], [['x']]);
    expect(Object.keys(record)).toEqual(['__proto__']);
    expect(storedRecord(record)).toEqual({ ['__proto__']: ['string', 'x'] });
  });

  it('stops, naming the column, when a TIMESTAMP is not microseconds since the epoch', () => {
    expect(() => records([{ name: 'at', type: 'TIMESTAMP' }], [['1.7625E9']])).toThrow(
      expect.objectContaining({ errorType: 'invalid_payload', message: expect.stringContaining('"at"') }),
    );
  });
});
