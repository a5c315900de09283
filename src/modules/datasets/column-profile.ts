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
  /** True when min, max or a sample value was cut to PROFILE_VALUE_MAX_BYTES; absent before it existed. */
  readonly valuesCut?: boolean;
}

const PROFILE_VALUE_MAX_BYTES = 1024;

export function cutText(text: string, maxBytes = PROFILE_VALUE_MAX_BYTES): { text: string; cut: boolean } {
  // A code unit takes at least 1 UTF-8 byte (at most 3), so only the first maxBytes units can matter.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  let bytes = 0;
  let end = 0;
  for (const char of text.slice(0, maxBytes + 1)) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) return { text: text.slice(0, end), cut: true };
    bytes += size;
    end += char.length;
  }
  return end < text.length ? { text: text.slice(0, end), cut: true } : { text, cut: false };
}

const SAMPLE_SIZE = 5;
const ID_NAME = /(?:^|[_.\s-])(?:id|uuid|guid|key)$|^(?:id|uuid|guid)$|[a-z0-9](?:Id|ID|Uuid)$/;

export class ColumnProfile {
  kinds = 0;
  nullCount: number;
  private numMin = Infinity;
  private numMax = -Infinity;
  /** Kept cut: a cut value shares its first bytes with every value between it and the uncut one. */
  private textMin: string | undefined;
  private textMax: string | undefined;
  private textMinCut = false;
  private textMaxCut = false;
  private readonly distinct = new DistinctCounter();
  private readonly samples = new SampleValues();

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
      if (this.textMin === undefined || value < this.textMin || (this.textMinCut && value === this.textMin)) {
        const { text, cut } = cutText(value);
        this.textMin = ownCopy(text);
        this.textMinCut = cut;
      }
      if (this.textMax === undefined || value > this.textMax) {
        const { text, cut } = cutText(value);
        this.textMax = ownCopy(text);
        this.textMaxCut = cut;
      }
    }
    this.distinct.add(value as number | string);
    if (!this.samples.isFull) this.samples.add(value);
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
    let boundsCut = false;
    if (textBounds) {
      const cutMin = textBounds.min === null ? null : cutText(textBounds.min);
      const cutMax = textBounds.max === null ? null : cutText(textBounds.max);
      min = cutMin?.text ?? null;
      max = cutMax?.text ?? null;
      boundsCut = (cutMin?.cut ?? false) || (cutMax?.cut ?? false);
    } else if (type === 'integer' || type === 'number' || type === 'boolean') {
      if (this.numMin <= this.numMax) {
        min = present(this.numMin);
        max = present(this.numMax);
      }
    } else {
      min = this.textMin ?? null;
      max = this.textMax ?? null;
      boundsCut = this.textMinCut || this.textMaxCut;
    }
    return columnSchemaOf(
      {
        name: this.name,
        kinds: this.kinds,
        nullCount: this.nullCount,
        distinctCount: this.distinct.count(),
        distinctEstimated: this.distinct.isEstimate,
        min,
        max,
        boundsCut,
        samples: this.samples,
      },
      rowCount,
    );
  }
}

export class SampleValues {
  readonly values: StoredValue[] = [];
  cut = false;

  get isFull(): boolean {
    return this.values.length >= SAMPLE_SIZE;
  }

  add(value: StoredValue): void {
    if (typeof value !== 'string') {
      if (!this.values.includes(value)) this.values.push(value);
      return;
    }
    const { text, cut } = cutText(value);
    if (this.values.includes(text)) return;
    this.values.push(ownCopy(text));
    this.cut ||= cut;
  }
}

export interface ColumnFacts {
  readonly name: string;
  readonly kinds: number;
  readonly nullCount: number;
  readonly distinctCount: number;
  readonly distinctEstimated: boolean;
  readonly min: ColumnValue;
  readonly max: ColumnValue;
  readonly boundsCut: boolean;
  readonly samples: SampleValues;
}

export function columnSchemaOf(facts: ColumnFacts, rowCount: number): ColumnSchema {
  const type = typeOfKinds(facts.kinds);
  const exactNumeric = exactNumericOfKinds(facts.kinds);
  return {
    name: facts.name,
    type,
    ...(exactNumeric && { exactNumeric }),
    role: roleOf(facts.name, type, facts.distinctCount, rowCount - facts.nullCount, facts.distinctEstimated),
    nullCount: facts.nullCount,
    distinctCount: facts.distinctCount,
    distinctEstimated: facts.distinctEstimated,
    min: facts.min,
    max: facts.max,
    sampleValues: facts.samples.values.map((value) => presentValue(value, type)),
    valuesCut: facts.boundsCut || facts.samples.cut,
  };
}

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
