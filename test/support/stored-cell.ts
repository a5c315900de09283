import { ValueClassifier } from '../../src/modules/datasets/value-kinds';

const KIND_NAMES: Readonly<Record<number, string>> = {
  0: 'null',
  1: 'integer',
  2: 'number',
  4: 'string',
  8: 'boolean',
  16: 'date',
  32: 'timestamp',
  64: 'string/integer',
  128: 'string/decimal',
};

/** The type and value a driver's cell becomes in a dataset column (`string/integer`: digits kept as text). */
export function stored(cell: unknown): [kind: string, value: unknown] {
  const classifier = new ValueClassifier();
  const value = classifier.convert(cell);
  return [KIND_NAMES[classifier.kind], value];
}

/** Each cell of a record as its stored type and value. */
export function storedRecord(record: Readonly<Record<string, unknown>>): Record<string, [string, unknown]> {
  return Object.fromEntries(Object.entries(record).map(([key, cell]) => [key, stored(cell)]));
}
