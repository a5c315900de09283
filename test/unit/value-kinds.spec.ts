import {
  exactNumericOfKinds,
  KIND_DATE,
  KIND_EXACT_DECIMAL,
  KIND_EXACT_INTEGER,
  KIND_INTEGER,
  KIND_NUMBER,
  KIND_STRING,
  KIND_TIMESTAMP,
  utcTimestamp,
  ValueClassifier,
} from '../../src/modules/datasets/value-kinds';

function classify(raw: unknown): [unknown, number] {
  const classifier = new ValueClassifier();
  const value = classifier.convert(raw);
  return [value, classifier.kind];
}

describe('value kinds: what a source value is stored as', () => {
  it.each([
    ['99999999999999.999999', '99999999999999.999999', KIND_EXACT_DECIMAL],
    ['12345678901234567890.1234567890', '12345678901234567890.1234567890', KIND_EXACT_DECIMAL],
    ['1.23456789012345678e5', '1.23456789012345678e5', KIND_EXACT_DECIMAL],
    ['9007199254740993', '9007199254740993', KIND_EXACT_INTEGER],
    ['-9007199254740993', '-9007199254740993', KIND_EXACT_INTEGER],
    ['00012345678901234567', '00012345678901234567', KIND_STRING],
    ['12.5000000000', 12.5, KIND_NUMBER],
    ['0.000000000000001', 1e-15, KIND_NUMBER],
    ['123456789012.345', 123456789012.345, KIND_NUMBER],
    ['-42', -42, KIND_INTEGER],
  ])('a decimal text %s keeps every digit (%p)', (raw, stored, kind) => {
    expect(classify(raw)).toEqual([stored, kind]);
  });

  it.each([
    ['2026-11-02T01:00:00+05:30', '2026-11-01T19:30:00.000Z'],
    ['2026-11-02T01:00:00+1245', '2026-11-01T12:15:00.000Z'],
    ['2026-03-08T02:30:00-05:00', '2026-03-08T07:30:00.000Z'],
    ['2026-11-02 10:00', '2026-11-02T10:00:00.000Z'],
    ['2026-11-02 10:00:00+00', '2026-11-02T10:00:00.000Z'],
    ['2026-11-02 10:00:00-09', '2026-11-02T19:00:00.000Z'],
    ['2026-11-02T10:00:00.123456Z', '2026-11-02T10:00:00.123456Z'],
    ['2026-11-02T10:00:00.120000Z', '2026-11-02T10:00:00.120Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('a timestamp text %s is stored in UTC as %s', (raw, stored) => {
    expect(classify(raw)).toEqual([stored, KIND_TIMESTAMP]);
  });

  it('a bigint beyond ±2^53 is kept as its digits, marked exact', () => {
    expect(classify(9007199254740993n)).toEqual(['9007199254740993', KIND_EXACT_INTEGER]);
    expect(classify(42n)).toEqual([42, KIND_INTEGER]);
  });

  it.each([
    [KIND_EXACT_INTEGER, 'integer'],
    [KIND_INTEGER | KIND_EXACT_INTEGER, 'integer'],
    [KIND_INTEGER | KIND_EXACT_DECIMAL, 'decimal'],
    [KIND_NUMBER | KIND_EXACT_INTEGER, 'decimal'],
    [KIND_EXACT_INTEGER | KIND_STRING, undefined],
    [KIND_INTEGER | KIND_NUMBER, undefined],
    [KIND_STRING, undefined],
  ])('a column of kinds %i is exact numeric: %p', (mask, exact) => {
    expect(exactNumericOfKinds(mask)).toBe(exact);
  });

  it('a timestamp on a day that does not exist stays text', () => {
    expect(utcTimestamp('2026-02-30T00:00:00Z')).toBeUndefined();
    expect(classify('2026-02-30T00:00:00Z')).toEqual(['2026-02-30T00:00:00Z', KIND_STRING]);
  });

  it('a date stays a date', () => {
    expect(classify('2026-11-02')).toEqual(['2026-11-02', KIND_DATE]);
  });

  it('an empty string from a typed source is text, not null', () => {
    expect(classify('')).toEqual(['', KIND_STRING]);
    expect(classify(null)).toEqual([null, 0]);
  });

  it('a text table reads an empty cell as null', () => {
    const classifier = new ValueClassifier();
    expect(classifier.convertRange('a,,b', 2, 2)).toBeNull();
    expect(classifier.kind).toBe(0);
  });
});
