import { ApiProperty } from '@nestjs/swagger';
import { ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError, ErrorDetail } from '../../common/errors';
import {
  DependsOnOtherFields,
  EachEntry,
  isPlainObject,
  Nested,
  Problem,
  RawField,
  toDto,
  validationFailure,
  WIRE_VALIDATOR_OPTIONS,
} from '../../common/validation';
import type { FileType } from './file-types';

// Each decorator declares a config field once: its validation rule, its contract schema and its stored form.

type Dto = Record<string, unknown>;
export type FieldCheck<T = Dto> = (value: unknown, config: T) => string | undefined;

export const FIELD_KINDS = [
  'string',
  'integer',
  'number',
  'boolean',
  'enum',
  'object',
  'map',
  'json',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  readonly aliases: readonly string[];
  readonly required: boolean | 'conditional';
  readonly secret: boolean;
  readonly default?: unknown;
  readonly values?: readonly string[];
  readonly description?: string;
  readonly nested?: () => ClassConstructor<object>;
  readonly read: (value: unknown, config: Dto) => unknown;
}

interface DependentDefault<V, T> {
  readonly shown: V;
  readonly of: (config: T) => V | undefined;
}

export type Default<V extends string | number, T> = V | DependentDefault<V, T>;

const isDependent = <V extends string | number, T>(
  fallback: Default<V, T> | undefined,
): fallback is DependentDefault<V, T> => typeof fallback === 'object';

const shownDefault = <V extends string | number, T>(fallback: Default<V, T> | undefined): V | undefined =>
  isDependent(fallback) ? fallback.shown : fallback;

const defaultFor = <V extends string | number, T>(
  fallback: Default<V, T> | undefined,
  config: Dto,
): V | undefined => (isDependent(fallback) ? fallback.of(config as T) : fallback);

export interface FieldOptions<T> {
  /** Other accepted names; the canonical name wins when both are given. Problems are named by the canonical one. */
  readonly aliases?: readonly string[];
  readonly secret?: boolean;
  readonly description?: string;
  readonly checks?: readonly FieldCheck<T>[];
}

const FIELDS = Symbol('connector config fields');

function ownFieldsOf(target: object): FieldSpec[] {
  if (!Object.prototype.hasOwnProperty.call(target, FIELDS)) {
    Object.defineProperty(target, FIELDS, { value: [], enumerable: false });
  }
  return (target as Record<symbol, FieldSpec[]>)[FIELDS];
}

/** A subclass may declare a parent's field again (a port with its own default): it keeps the parent's place. */
export function fieldsOf(type: ClassConstructor<object>): readonly FieldSpec[] {
  const chain: object[] = [];
  for (let proto = type.prototype as object | null; proto && proto !== Object.prototype;) {
    chain.unshift(proto);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  const fields: FieldSpec[] = [];
  for (const proto of chain) {
    if (!Object.prototype.hasOwnProperty.call(proto, FIELDS)) continue;
    for (const spec of (proto as Record<symbol, FieldSpec[]>)[FIELDS]) {
      const index = fields.findIndex((known) => known.name === spec.name);
      if (index < 0) fields.push(spec);
      else fields[index] = spec;
    }
  }
  return fields;
}

const SCHEMA_TYPES: Record<FieldKind, string | undefined> = {
  string: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  enum: 'string',
  object: undefined,
  map: 'object',
  json: undefined,
};

function describe(spec: FieldSpec, description: string | undefined): string {
  const aliases = spec.aliases.length > 0 ? `Also accepted as ${spec.aliases.join(', ')}.` : undefined;
  return [description, aliases].filter((part) => part !== undefined).join(' ');
}

function field<T>(
  spec: Omit<FieldSpec, 'name' | 'aliases' | 'secret'>,
  options: FieldOptions<T>,
  own: FieldCheck<T>,
  schema: Record<string, unknown> = {},
): PropertyDecorator {
  return (target, property) => {
    const name = String(property);
    const full: FieldSpec = {
      ...spec,
      description: options.description,
      name,
      aliases: options.aliases ?? [],
      secret: options.secret === true,
    };
    ownFieldsOf(target).push(full);
    // Always validated (a missing value has its own problem); marks the field optional in the contract.
    if (spec.required !== true) DependsOnOtherFields()(target, property);
    const checks = [own, ...(options.checks ?? [])];
    Problem<Dto>((value, config) => {
      for (const check of checks) {
        const problem = check(value, config as T);
        if (problem !== undefined) return problem;
      }
      return undefined;
    })(target, property);
    const description = describe(full, options.description);
    ApiProperty({
      required: spec.required === true,
      ...(SCHEMA_TYPES[spec.kind] ? { type: SCHEMA_TYPES[spec.kind] } : {}),
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(full.secret ? { writeOnly: true } : {}),
      ...(description ? { description } : {}),
      ...schema,
    } as Parameters<typeof ApiProperty>[0])(target, property);
  };
}

type Required<T> = boolean | ((config: T) => boolean);

const isRequired = <T>(required: Required<T> | undefined, config: T): boolean =>
  typeof required === 'function' ? required(config) : required === true;

const requiredSpec = <T>(required: Required<T> | undefined): boolean | 'conditional' =>
  typeof required === 'function' ? 'conditional' : required === true;

export function ConfigString<T = Dto>(
  options: FieldOptions<T> & { readonly required?: Required<T>; readonly default?: Default<string, T> } = {},
): PropertyDecorator {
  const fallback = options.default;
  return field<T>(
    {
      kind: 'string',
      required: requiredSpec(options.required),
      default: shownDefault(fallback),
      read: (value, config) => {
        const given = value === undefined || (fallback !== undefined && (value as string).trim() === '');
        return given ? defaultFor(fallback, config) : value;
      },
    },
    options,
    (value, config) => {
      if (value === undefined) return isRequired(options.required, config) ? 'is required' : undefined;
      if (typeof value !== 'string') return 'must be a string';
      if (value.trim() === '' && isRequired(options.required, config)) return 'must not be empty';
      return undefined;
    },
  );
}

function toInteger(value: unknown): unknown {
  return typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
}

export function ConfigInteger<T = Dto>(
  options: FieldOptions<T> & {
    readonly min?: number;
    readonly max?: number;
    readonly default?: Default<number, T>;
    readonly missing?: string;
  } = {},
): PropertyDecorator {
  return field<T>(
    {
      kind: 'integer',
      required: options.missing !== undefined,
      default: shownDefault(options.default),
      read: (value, config) => (value === undefined ? defaultFor(options.default, config) : toInteger(value)),
    },
    options,
    (value) => {
      if (value === undefined) return options.missing;
      const number = toInteger(value);
      if (typeof number !== 'number' || !Number.isSafeInteger(number)) return 'must be an integer';
      if (options.min !== undefined && number < options.min) return `must be at least ${options.min}`;
      if (options.max !== undefined && number > options.max) return `must be at most ${options.max}`;
      return undefined;
    },
    {
      ...(options.min !== undefined ? { minimum: options.min } : {}),
      ...(options.max !== undefined ? { maximum: options.max } : {}),
    },
  );
}

export function ConfigPort<T = Dto>(
  options: FieldOptions<T> & { readonly default?: Default<number, T> } = {},
): PropertyDecorator {
  return ConfigInteger<T>({ ...options, min: 1, max: 65535 });
}

const toNumber = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;

export function ConfigPositiveNumber<T = Dto>(
  options: FieldOptions<T> & { readonly default?: number } = {},
): PropertyDecorator {
  return field<T>(
    {
      kind: 'number',
      required: false,
      default: options.default,
      read: (value) => (value === undefined ? options.default : toNumber(value)),
    },
    options,
    (value) => {
      if (value === undefined) return undefined;
      const number = toNumber(value);
      return typeof number !== 'number' || !Number.isFinite(number) || number <= 0
        ? 'must be a positive number'
        : undefined;
    },
    { exclusiveMinimum: 0 },
  );
}

export function ConfigBoolean<T = Dto>(
  options: FieldOptions<T> & { readonly default?: boolean } = {},
): PropertyDecorator {
  return field<T>(
    {
      kind: 'boolean',
      required: false,
      default: options.default,
      read: (value) => (value === undefined ? options.default : value === true || value === 'true'),
    },
    options,
    (value) =>
      value === undefined || typeof value === 'boolean' || value === 'true' || value === 'false'
        ? undefined
        : 'must be a boolean',
  );
}

export function matchOf(values: readonly string[], value: unknown): string | undefined {
  const normal = typeof value === 'string' ? value.trim().toLowerCase() : value;
  return values.find((v) => v.toLowerCase() === normal);
}

export function ConfigEnum<T = Dto>(
  values: readonly string[],
  options: FieldOptions<T> & {
    readonly default?: string;
    readonly missing?: string;
  } = {},
): PropertyDecorator {
  return field<T>(
    {
      kind: 'enum',
      required: options.missing !== undefined,
      default: options.default,
      values,
      read: (value) => (value === undefined || value === '' ? options.default : matchOf(values, value)),
    },
    options,
    (value) => {
      if (value === undefined) return options.missing;
      return value === '' || matchOf(values, value) !== undefined
        ? undefined
        : `must be one of ${values.join(', ')}`;
    },
    { enum: [...values] },
  );
}

export function ConfigJson<T = Dto>(
  options: FieldOptions<T> & {
    readonly schema?: Record<string, unknown>;
    readonly read?: (value: unknown) => unknown;
  } = {},
): PropertyDecorator {
  const read = options.read ?? ((value: unknown) => value);
  return (target, property) => {
    RawField((raw) => raw)(target, property);
    field<T>(
      { kind: 'json', required: false, read },
      options,
      () => undefined,
      options.schema ?? {},
    )(target, property);
  };
}

const mustBeObject: FieldCheck<unknown> = (value) =>
  value === undefined || isPlainObject(value) ? undefined : 'must be an object';

export function ConfigStringMap<T = Dto>(options: FieldOptions<T> = {}): PropertyDecorator {
  return (target, property) => {
    RawField((raw) => raw)(target, property);
    EachEntry((value) => (typeof value === 'string' ? undefined : 'must be a string'))(target, property);
    field<T>(
      { kind: 'map', required: false, read: (value) => ({ ...(value ?? {}) }) },
      options,
      mustBeObject,
      { additionalProperties: { type: 'string' } },
    )(target, property);
  };
}

const isScalar = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

export function ConfigScalarMap<T = Dto>(options: FieldOptions<T> = {}): PropertyDecorator {
  return (target, property) => {
    RawField((raw) => raw)(target, property);
    EachEntry((value) => (isScalar(value) ? undefined : 'must be a string, number or boolean'))(
      target,
      property,
    );
    field<T>(
      {
        kind: 'map',
        required: false,
        read: (value) =>
          Object.fromEntries(
            Object.entries((value as object | undefined) ?? {}).map(([k, v]) => [k, String(v)]),
          ),
      },
      options,
      mustBeObject,
      { additionalProperties: { type: ['string', 'number', 'boolean'] } },
    )(target, property);
  };
}

export function ConfigObject<T = Dto>(
  type: () => ClassConstructor<object>,
  options: FieldOptions<T> = {},
): PropertyDecorator {
  return (target, property) => {
    Nested(type)(target, property);
    field<T>(
      {
        kind: 'object',
        required: false,
        nested: type,
        read: (value) => (value === undefined ? undefined : storedFields(value as object)),
      },
      options,
      mustBeObject,
      // @nestjs/swagger takes a function for a type only when it is named `type`, as an inline property is.
      { type: () => type() },
    )(target, property);
  };
}

export class ConfigFields {}

export interface RequestedType {
  readonly fileType?: FileType;
}

export abstract class ConnectorConfig<C> extends ConfigFields {
  abstract toConfig(requested: RequestedType): C;
}

export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function storedFields<T extends object = Record<string, unknown>>(instance: object): T {
  const values = instance as Dto;
  return compact<T>(
    Object.fromEntries(
      fieldsOf(instance.constructor as ClassConstructor<object>).map((spec) => [
        spec.name,
        values[spec.name],
      ]),
    ) as T,
  );
}

function readFields(instance: object): void {
  const values = instance as Dto;
  for (const spec of fieldsOf(instance.constructor as ClassConstructor<object>)) {
    if (spec.nested && isPlainObject(values[spec.name])) readFields(values[spec.name] as object);
    values[spec.name] = spec.read(values[spec.name], values);
  }
}

/** A field (or alias) given as null counts as missing; an alias names its field unless the field is given. */
function resolveAliases(raw: Dto, type: ClassConstructor<object>): Dto {
  const out: Dto = { ...raw };
  for (const spec of fieldsOf(type)) {
    const names = [spec.name, ...spec.aliases];
    const given = names.map((name) => out[name]).find((value) => value !== undefined && value !== null);
    for (const name of names) delete out[name];
    if (given === undefined) continue;
    out[spec.name] = spec.nested && isPlainObject(given) ? resolveAliases(given, spec.nested()) : given;
  }
  return out;
}

function isOpen(type: ClassConstructor<object>): boolean {
  return (type as unknown as { isOpen?: boolean }).isOpen === true;
}

const UNKNOWN = 'is not a known field';

/** Throws 422 validation_failed naming every problem by its path under `config`. */
export function normalizeConfigClass<C>(
  type: ClassConstructor<ConnectorConfig<C>>,
  raw: Dto,
  requested: RequestedType,
): C {
  if (isOpen(type)) return { ...raw } as C;
  const instance = toDto(type, resolveAliases(raw, type));
  const errors = validateSync(instance, WIRE_VALIDATOR_OPTIONS);
  if (errors.length > 0) {
    const order = fieldsOf(type).map((spec) => spec.name);
    const rank = (detail: ErrorDetail): number => {
      if (detail.problem === UNKNOWN && !detail.field.includes('.')) return order.length;
      const index = order.indexOf(detail.field.split(/[.[]/)[0]);
      return index < 0 ? order.length : index;
    };
    const details = (validationFailure(errors).details ?? [])
      .map((detail, index) => ({ detail, index }))
      .sort((a, b) => rank(a.detail) - rank(b.detail) || a.index - b.index)
      .map(({ detail }) => ({
        field: detail.field === 'body' ? 'config' : `config.${detail.field}`,
        problem: detail.problem,
      }));
    throw AppError.validation(details);
  }
  readFields(instance);
  return instance.toConfig(requested);
}
