import type { CustomTypesConfig } from 'pg';

type TypeParser = (text: string) => unknown;

const asText: TypeParser = (text) => text;

/** PostgreSQL type oids whose driver default changes a value: each is read as the server's own text. */
const KEPT_AS_TEXT = [
  1082, // date: the default makes a Date at local midnight, which shifts the day with the host's zone
  1114, // timestamp: the default reads it in the host's zone; the dataset reads it as UTC
  1184, // timestamptz: the default drops the microseconds; the text carries the offset
  1083, // time
  1266, // timetz
  1186, // interval: the default makes an object
  114, // json: JSON.parse rounds integers beyond 2^53
  3802, // jsonb: likewise
  1700, // numeric: exact digits
  20, // int8: exact digits
];

/** Oids whose text is a typed value the dataset reads by its shape; any other text stays text. */
const READ_BY_SHAPE = [1082, 1114, 1184, 1700, 20];

export function shapedColumns(fields: readonly { name: string; dataTypeID: number }[]): ReadonlySet<string> {
  return new Set(fields.filter((field) => READ_BY_SHAPE.includes(field.dataTypeID)).map((f) => f.name));
}

/** Arrays of dates and timestamps: the elements as text, like an array of text (the default makes local Dates). */
const ARRAYS_AS_TEXT = [1182, 1115, 1185, 1183, 1270];
const TEXT_ARRAY_OID = 1009;

/** One pg client's type parsers, minus lossy defaults; per client, so the daemon's own store is untouched. */
export function exactTypeParsers(defaults: CustomTypesConfig): CustomTypesConfig {
  const defaultParser = defaults.getTypeParser as (oid: number, format?: 'text' | 'binary') => unknown;
  const textArray = defaultParser(TEXT_ARRAY_OID, 'text');
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (KEPT_AS_TEXT.includes(oid)) return asText;
      if (ARRAYS_AS_TEXT.includes(oid)) return textArray;
    }
    return defaultParser(oid, format);
  }) as CustomTypesConfig['getTypeParser'];
  return { getTypeParser };
}
