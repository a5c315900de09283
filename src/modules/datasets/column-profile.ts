import { DistinctCounter, ownCopy } from './distinct-counter';
import {
  ColumnType,
  ExactNumeric,
  exactNumericOfKinds,
  StoredValue,
  typeOfKinds,
  ValueClassifier,
} from './value-kinds';

export const COLUMN_ROLES = ['id', 'time', 'measure', 'dimension'] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];

export type ColumnValue = number | string | boolean | null;

/** A column as the catalogue stores it: computed once at ingest. */
export interface ColumnSchema {
  readonly name: string;
  readonly type: ColumnType;
  /** Set on a string column of numbers kept as text with their exact digits; absent before it existed. */
  readonly exactNumeric?: ExactNumeric;
  readonly role: ColumnRole;
  readonly nullCount: number;
  readonly distinctCount: number;
  /** True when distinct_count is a HyperLogLog estimate (more than a few thousand distinct values). */
  readonly distinctEstimated: boolean;
  readonly min: ColumnValue;
  readonly max: ColumnValue;
  readonly sampleValues: readonly ColumnValue[];
}

const SAMPLE_SIZE = 5;
const ID_NAME = /(?:^|[_.\s-])(?:id|uuid|guid|key)$|^(?:id|uuid|guid)$|[a-z0-9](?:Id|ID|Uuid)$/;

/** Running statistics of one column while rows stream in; `observe` returns the value to store. */
export class ColumnProfile {
  kinds = 0;
  nullCount: number;
  private numMin = Infinity;
  private numMax = -Infinity;
  private textMin: string | undefined;
  private textMax: string | undefined;
  private readonly distinct = new DistinctCounter();
  private readonly samples: StoredValue[] = [];

  constructor(
    readonly name: string,
    private readonly classifier: ValueClassifier,
    rowsBefore = 0,
  ) {
    this.nullCount = rowsBefore;
  }

  observe(raw: unknown): StoredValue {
    return this.record(this.classifier.convert(raw));
  }

  /** Profiles a value the classifier has just converted (its kind in `classifier.kind`); returns it. */
  record(value: StoredValue): StoredValue {
    const kind = this.classifier.kind;
    if (kind === 0) {
      this.nullCount++;
      return null;
    }
    this.kinds |= kind;
    if (typeof value === 'number') {
      if (value < this.numMin) this.numMin = value;
      if (value > this.numMax) this.numMax = value;
    } else if (value !== null) {
      if (this.textMin === undefined || value < this.textMin) this.textMin = ownCopy(value);
      if (this.textMax === undefined || value > this.textMax) this.textMax = ownCopy(value);
    }
    this.distinct.add(value as number | string);
    if (this.samples.length < SAMPLE_SIZE && !this.samples.includes(value)) {
      this.samples.push(typeof value === 'string' ? ownCopy(value) : value);
    }
    return value;
  }

  get type(): ColumnType {
    return typeOfKinds(this.kinds);
  }

  /** True when the stored values mix numbers and text, so the file needs the text fix-up before it is final. */
  get needsTextFixup(): boolean {
    return this.type === 'string' && this.kinds !== 0 && this.numMin <= this.numMax;
  }

  toSchema(rowCount: number, textBounds?: { min: string | null; max: string | null }): ColumnSchema {
    const type = this.type;
    const present = (value: StoredValue): ColumnValue => presentValue(value, type);
    let min: ColumnValue = null;
    let max: ColumnValue = null;
    if (textBounds) {
      min = textBounds.min;
      max = textBounds.max;
    } else if (type === 'integer' || type === 'number' || type === 'boolean') {
      if (this.numMin <= this.numMax) {
        min = present(this.numMin);
        max = present(this.numMax);
      }
    } else {
      min = this.textMin ?? null;
      max = this.textMax ?? null;
    }
    const distinctCount = this.distinct.count();
    const exactNumeric = exactNumericOfKinds(this.kinds);
    return {
      name: this.name,
      type,
      ...(exactNumeric && { exactNumeric }),
      role: roleOf(this.name, type, distinctCount, rowCount - this.nullCount, this.distinct.isEstimate),
      nullCount: this.nullCount,
      distinctCount,
      distinctEstimated: this.distinct.isEstimate,
      min,
      max,
      sampleValues: this.samples.map(present),
    };
  }
}

/** The wire form of a stored value: booleans back from 0/1, numbers as text in a column widened to text. */
export function presentValue(value: StoredValue, type: ColumnType): ColumnValue {
  if (value === null) return null;
  if (type === 'boolean') return value === 1;
  if (type === 'string' && typeof value === 'number') return String(value);
  return value;
}

/** id: named like an identifier, or text unique on every row; time: dates; measure: numbers; else dimension. */
export function roleOf(
  name: string,
  type: ColumnType,
  distinctCount: number,
  nonNull: number,
  estimated = false,
): ColumnRole {
  const unique = nonNull >= 10 && distinctCount >= (estimated ? 0.97 : 1) * nonNull;
  if ((type === 'integer' || type === 'string') && ID_NAME.test(name)) return 'id';
  if (type === 'string' && unique) return 'id';
  if (type === 'date' || type === 'timestamp') return 'time';
  if (type === 'integer' || type === 'number') return 'measure';
  return 'dimension';
}
