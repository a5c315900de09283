import { ConnectorError } from '../connector-error';
import { DeclaredText, emptyRecord, ParsedRecord } from '../formats/records';
import { instantText, sqlCell } from './sql-common';

export interface BigqueryField {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly fields?: readonly BigqueryField[];
}

export type BigqueryWireValue =
  | string
  | null
  | readonly { readonly v: BigqueryWireValue }[]
  | { readonly f: readonly { readonly v: BigqueryWireValue }[] };

export interface BigqueryWireRow {
  readonly f: readonly { readonly v: BigqueryWireValue }[];
}

/** Asked of every results page, so a TIMESTAMP is the exact microseconds since the epoch, not a float of seconds. */
export const BIGQUERY_FORMAT_OPTIONS = { useInt64Timestamp: true } as const;

const READ_BY_SHAPE = new Set(['DATE', 'DATETIME', 'NUMERIC', 'BIGNUMERIC', 'DECIMAL', 'BIGDECIMAL']);
const MICROS_PER_SECOND = 1_000_000n;

function isRecordField(field: BigqueryField): boolean {
  return field.type === 'RECORD' || field.type === 'STRUCT';
}

function timestampText(text: string, field: BigqueryField): string {
  if (!/^-?\d+$/.test(text)) {
    throw new ConnectorError(
      'invalid_payload',
      `Column "${field.name}" holds the TIMESTAMP ${text}, not microseconds since the epoch.`,
    );
  }
  const micros = BigInt(text);
  let seconds = micros / MICROS_PER_SECOND;
  let rest = micros % MICROS_PER_SECOND;
  if (rest < 0n) {
    rest += MICROS_PER_SECOND;
    seconds -= 1n;
  }
  return instantText(Number(seconds), Number(rest) * 1000, 6);
}

function scalarCell(text: string, field: BigqueryField): unknown {
  switch (field.type) {
    case 'INTEGER':
    case 'INT64':
      return sqlCell(BigInt(text));
    case 'FLOAT':
    case 'FLOAT64':
      return sqlCell(Number(text));
    case 'BOOLEAN':
    case 'BOOL':
      return text.toLowerCase() === 'true';
    case 'TIMESTAMP':
      return timestampText(text, field);
    default:
      return sqlCell(text, READ_BY_SHAPE.has(field.type));
  }
}

function wireValue(
  value: BigqueryWireValue,
  field: BigqueryField,
  repeated = field.mode === 'REPEATED',
): unknown {
  if (value === null || value === undefined) return null;
  if (repeated)
    return (value as readonly { v: BigqueryWireValue }[]).map((item) => wireValue(item.v, field, false));
  if (isRecordField(field)) {
    const cells = (value as BigqueryWireRow).f;
    const record = emptyRecord();
    (field.fields ?? []).forEach((sub, i) => (record[sub.name] = wireValue(cells[i]?.v ?? null, sub)));
    return record;
  }
  return scalarCell(value as string, field);
}

export function bigqueryCell(value: BigqueryWireValue, field: BigqueryField): unknown {
  const cell = wireValue(value, field);
  if (cell === null || (field.mode !== 'REPEATED' && !isRecordField(field))) return cell;
  return new DeclaredText(JSON.stringify(cell));
}

export function bigqueryRecord(row: BigqueryWireRow, fields: readonly BigqueryField[]): ParsedRecord {
  const record = emptyRecord();
  fields.forEach((field, i) => (record[field.name] = bigqueryCell(row.f[i]?.v ?? null, field)));
  return record;
}
