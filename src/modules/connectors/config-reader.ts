import { ErrorDetail } from '../../common/errors';

type Raw = Readonly<Record<string, unknown>>;

interface FieldOptions {
  /** Other accepted names; the canonical name wins when both are given. */
  readonly aliases?: readonly string[];
}

/**
 * Reads one flat config object field by field, applying aliases and defaults and collecting every problem with the
 * field's full name (`config.port`), so one 422 lists them all. Unread fields are reported as unknown at the end.
 */
export class ConfigReader {
  private readonly problems: ErrorDetail[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly raw: Raw,
    private readonly prefix = 'config',
  ) {}

  fieldName(key: string): string {
    return `${this.prefix}.${key}`;
  }

  problem(key: string, problem: string): void {
    this.problems.push({ field: this.fieldName(key), problem });
  }

  has(key: string, options: FieldOptions = {}): boolean {
    return this.lookup(key, options, false) !== undefined;
  }

  string(key: string, options: FieldOptions & { required?: boolean } = {}): string | undefined {
    const value = this.lookup(key, options);
    if (value === undefined) {
      if (options.required) this.problem(key, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problem(key, 'must be a string');
      return undefined;
    }
    if (value.trim() === '' && options.required) {
      this.problem(key, 'must not be empty');
      return undefined;
    }
    return value;
  }

  stringOr(key: string, fallback: string, options: FieldOptions = {}): string {
    const value = this.string(key, options);
    return value === undefined || value.trim() === '' ? fallback : value;
  }

  integer(key: string, options: FieldOptions & { min?: number; max?: number } = {}): number | undefined {
    const value = this.lookup(key, options);
    if (value === undefined) return undefined;
    const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
    if (typeof number !== 'number' || !Number.isSafeInteger(number)) {
      this.problem(key, 'must be an integer');
      return undefined;
    }
    if (options.min !== undefined && number < options.min) {
      this.problem(key, `must be at least ${options.min}`);
      return undefined;
    }
    if (options.max !== undefined && number > options.max) {
      this.problem(key, `must be at most ${options.max}`);
      return undefined;
    }
    return number;
  }

  port(key = 'port'): number | undefined {
    return this.integer(key, { min: 1, max: 65535 });
  }

  positiveNumber(key: string): number | undefined {
    const value = this.lookup(key, {});
    if (value === undefined) return undefined;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) {
      this.problem(key, 'must be a positive number');
      return undefined;
    }
    return number;
  }

  boolean(key: string, fallback: boolean, options: FieldOptions = {}): boolean {
    const value = this.lookup(key, options);
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    this.problem(key, 'must be a boolean');
    return fallback;
  }

  oneOf<const T extends string>(
    key: string,
    values: readonly T[],
    fallback: T,
    options: FieldOptions = {},
  ): T {
    const value = this.lookup(key, options);
    if (value === undefined || value === '') return fallback;
    const normal = typeof value === 'string' ? value.trim().toLowerCase() : value;
    const match = values.find((v) => v.toLowerCase() === normal);
    if (match === undefined) {
      this.problem(key, `must be one of ${values.join(', ')}`);
      return fallback;
    }
    return match;
  }

  /** An object of string values (headers): non-string scalars are refused rather than coerced. */
  stringMap(key: string): Record<string, string> | undefined {
    const value = this.object(key);
    if (value === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (typeof item !== 'string') {
        this.problems.push({ field: `${this.fieldName(key)}.${name}`, problem: 'must be a string' });
        continue;
      }
      out[name] = item;
    }
    return out;
  }

  /** An object of scalar values (query parameters), each kept as its string form. */
  scalarMap(key: string): Record<string, string> | undefined {
    const value = this.object(key);
    if (value === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
        out[name] = String(item);
      else
        this.problems.push({
          field: `${this.fieldName(key)}.${name}`,
          problem: 'must be a string, number or boolean',
        });
    }
    return out;
  }

  object(key: string, options: FieldOptions = {}): Record<string, unknown> | undefined {
    const value = this.lookup(key, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(key, 'must be an object');
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  /** Any JSON value (a REST body, a sheet name or index); only marks the field as read. */
  json(key: string, options: FieldOptions = {}): unknown {
    return this.lookup(key, options);
  }

  /** A nested reader for an object field (pagination, auth); its problems are merged into this one's. */
  nested(key: string): ConfigReader | undefined {
    const value = this.object(key);
    return value === undefined ? undefined : new ConfigReader(value, this.fieldName(key));
  }

  merge(child: ConfigReader): void {
    this.problems.push(...child.finish());
  }

  /** Every field as given, all marked known (for types whose fields the spec leaves open). */
  all(): Record<string, unknown> {
    for (const key of Object.keys(this.raw)) this.seen.add(key);
    return { ...this.raw };
  }

  /** The collected problems, plus one per field that no reader asked for. */
  finish(): ErrorDetail[] {
    for (const key of Object.keys(this.raw)) {
      if (!this.seen.has(key))
        this.problems.push({ field: this.fieldName(key), problem: 'is not a known field' });
    }
    this.seen.clear();
    for (const key of Object.keys(this.raw)) this.seen.add(key);
    return [...this.problems];
  }

  private lookup(key: string, options: FieldOptions, mark = true): unknown {
    const names = [key, ...(options.aliases ?? [])];
    if (mark) for (const name of names) this.seen.add(name);
    for (const name of names) {
      const value = this.raw[name];
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  }
}
