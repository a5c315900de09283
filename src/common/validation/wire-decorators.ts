import { ClassConstructor, Exclude, plainToInstance, Transform, Type } from 'class-transformer';
import {
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';

// Only the first problem of a field is reported, in reading order, so a check may assume the checks above it passed.
export type Check<T extends object = Record<string, unknown>> = (
  value: unknown,
  object: T,
) => string | undefined;

let nextCheckId = 0;

export function Problem<T extends object = Record<string, unknown>>(check: Check<T>): PropertyDecorator {
  const name = `problem${nextCheckId++}`;
  return (target, propertyName) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) => check(value, args.object as T) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          (args ? check(args.value, args.object as T) : '') ?? '',
      },
    });
  };
}

export type ItemCheck<T extends object = Record<string, unknown>> = (
  item: unknown,
  index: number,
  items: readonly unknown[],
  object: T,
) => string | undefined;

const ITEM_CHECKS = new Map<string, ItemCheck>();

/** class-validator names the items of nested objects only, so items are reported at their own path here. */
export function EachItem<T extends object = Record<string, unknown>>(check: ItemCheck<T>): PropertyDecorator {
  const name = `items${nextCheckId++}`;
  ITEM_CHECKS.set(name, check as ItemCheck);
  return (target, propertyName) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          !Array.isArray(value) ||
          value.every((item, index) => check(item, index, value, args.object as T) === undefined),
        defaultMessage: () => 'has invalid items',
      },
    });
  };
}

export type EntryCheck = (value: unknown, name: string) => string | undefined;

const ENTRY_CHECKS = new Map<string, EntryCheck>();

export function EachEntry(check: EntryCheck): PropertyDecorator {
  const name = `entries${nextCheckId++}`;
  ENTRY_CHECKS.set(name, check);
  return (target, propertyName) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) =>
          !isPlainObject(value) ||
          Object.entries(value).every(([key, item]) => check(item, key) === undefined),
        defaultMessage: () => 'has invalid entries',
      },
    });
  };
}

export function itemProblems(rule: string, value: unknown, object: unknown): [string, string][] | undefined {
  const entryCheck = ENTRY_CHECKS.get(rule);
  if (entryCheck && isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => {
      const problem = entryCheck(item, key);
      return problem === undefined ? [] : [[`.${key}`, problem] as [string, string]];
    });
  }
  const check = ITEM_CHECKS.get(rule);
  if (!check || !Array.isArray(value)) return undefined;
  return value.flatMap((item, index) => {
    const problem = check(item, index, value, object as Record<string, unknown>);
    return problem === undefined ? [] : [[`[${index}]`, problem] as [string, string]];
  });
}

/** Validates the field only when it is in the body: unlike IsOptional, an explicit null is still checked. */
export function IfPresent(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

export function DependsOnOtherFields(): PropertyDecorator {
  return ValidateIf(() => true);
}

/** The pseudo-property for a rule about a whole object; its problem is reported at the object's own path. */
export const WHOLE_OBJECT = '$object';

export function WholeProblem<T extends object>(check: (object: T) => string | undefined): ClassDecorator {
  const name = `whole${nextCheckId++}`;
  return (target) => {
    registerDecorator({
      name,
      target,
      propertyName: WHOLE_OBJECT,
      validator: {
        validate: (_value: unknown, args: ValidationArguments) => check(args.object as T) === undefined,
        defaultMessage: (args?: ValidationArguments) => (args ? check(args.object as T) : '') ?? '',
      },
    });
  };
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

@WholeProblem<Refused>((refused) => contextOf<string>(refused))
export class Refused {
  static because(problem: string): Refused {
    return withContext(new Refused(), problem);
  }
}

/** class-validator walks an array found where it expects an object as a list, so `[[]]` would otherwise pass. */
export function toNestedDto(
  value: unknown,
  read: (raw: Record<string, unknown>) => object,
  problem: string,
): unknown {
  if (isPlainObject(value)) return read(value);
  return Array.isArray(value) ? Refused.because(problem) : value;
}

type RawReader = (raw: unknown, parent: Record<string, unknown>) => unknown;
const RAW_FIELDS = Symbol('raw fields');

function rawFieldsOf(dto: object): ReadonlyMap<string, RawReader> {
  return (
    (Reflect.getMetadata(RAW_FIELDS, dto.constructor) as Map<string, RawReader> | undefined) ?? new Map()
  );
}

/** For objects whose names the client chooses: class-transformer skips a name such as `constructor`. */
export function RawField(read: RawReader): PropertyDecorator {
  return (target, property) => {
    Exclude({ toClassOnly: true })(target, property);
    const fields = new Map(rawFieldsOf(target));
    fields.set(String(property), read);
    Reflect.defineMetadata(RAW_FIELDS, fields, target.constructor);
  };
}

function fillRawFields<T extends object>(dto: T, raw: Record<string, unknown>): T {
  for (const [property, read] of rawFieldsOf(dto)) {
    if (raw[property] !== undefined) (dto as Record<string, unknown>)[property] = read(raw[property], raw);
  }
  return dto;
}

export function toDto<T extends object>(dto: ClassConstructor<T>, raw: Record<string, unknown>): T {
  return fillRawFields(plainToInstance(dto, raw), raw);
}

export function Nested(dto: () => ClassConstructor<object>, options?: ValidationOptions): PropertyDecorator {
  return (target, property) => {
    ValidateNested(options)(target, property);
    Transform(({ value, obj, key }: { value: unknown; obj: Record<string, unknown>; key: string }) => {
      const raw = obj[key];
      return value instanceof dto() && isPlainObject(raw) ? fillRawFields(value, raw) : value;
    })(target, property);
    Type(dto)(target, property);
  };
}

export function MapOf(
  toEntry: (value: unknown, key: string, parent: Record<string, unknown>) => unknown,
): PropertyDecorator {
  return RawField((raw, parent) =>
    isPlainObject(raw)
      ? new Map(Object.entries(raw).map(([key, item]) => [key, toEntry(item, key, parent)]))
      : raw,
  );
}

const CONTEXT = Symbol('validation context');

export function withContext<T extends object, C>(dto: T, context: C): T {
  Object.defineProperty(dto, CONTEXT, { value: context, enumerable: false });
  return dto;
}

export function contextOf<C>(dto: object): C | undefined {
  return (dto as Record<symbol, C | undefined>)[CONTEXT];
}
