import { ClassConstructor, Exclude, plainToInstance, Transform, Type } from 'class-transformer';
import {
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';

/**
 * The custom validators of every request body, in one place. A check returns the problem (the sentence a client
 * sees in `details[].problem`) or undefined when the value is fine; only the first problem of a field is reported,
 * in reading order (see wire-validation.ts), so a check may assume that the checks written above it passed.
 */
export type Check<T extends object = Record<string, unknown>> = (
  value: unknown,
  object: T,
) => string | undefined;

let nextCheckId = 0;

/** A field rule: `@Problem((value, dto) => ... )`. */
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

/**
 * A rule for each item of a list of plain values (column names), reported at the item's own path (`select[1]`):
 * class-validator names the items of nested objects only. A value that is not an array is left to the rules above.
 */
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

/**
 * A rule for each entry of a JSON object whose names the client chooses (headers), reported at the entry's own
 * path (`headers.X-Trace`). A value that is not an object is left to the rules above.
 */
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

/**
 * The problems of an `@EachItem` or `@EachEntry` rule that failed, as the path step of each item (`[1]`, `.name`);
 * undefined for any other rule.
 */
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

/**
 * An optional field whose need depends on other fields (a `value` is required for `eq`, absent for `is_null`):
 * described as optional, and its rules decide, missing or not.
 */
export function DependsOnOtherFields(): PropertyDecorator {
  return ValidateIf(() => true);
}

/**
 * The pseudo-property that carries a rule about a whole object (a map entry that must not exist, a fixed value
 * given in place of a range); its problem is reported at the object's own path.
 */
export const WHOLE_OBJECT = '$object';

/** A rule about the object as a whole, reported at its own path (`scenario.actions[0].set.price`). */
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

/** A value refused as a whole (a map entry that must not exist, an array given for an object), at its own path. */
@WholeProblem<Refused>((refused) => contextOf<string>(refused))
export class Refused {
  static because(problem: string): Refused {
    return withContext(new Refused(), problem);
  }
}

/**
 * An item of a nested list or map as its DTO (`read`), refusing an array with `problem`: class-validator walks an
 * array found where it expects an object as a list of its own, so `[[]]` would otherwise pass. Anything else that
 * is not an object is left for the nested check to refuse.
 */
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

/**
 * A field class-transformer must not walk, read from the body by `read` instead: a JSON object whose names the
 * client chooses (class-transformer skips a name such as `constructor` and fails on its value), or items that need
 * what is around them. Filled by toDto and by `@Nested` fields.
 */
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

/** A JSON object as its DTO class, raw fields included. */
export function toDto<T extends object>(dto: ClassConstructor<T>, raw: Record<string, unknown>): T {
  return fillRawFields(plainToInstance(dto, raw), raw);
}

/** A nested DTO (`@ValidateNested` with its type); anything but an object is left for the field's rules. */
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

/**
 * A JSON object with names chosen by the client (variables, headers) as a Map, in the order given, each value
 * turned into its DTO by `toEntry` (which may return the value unchanged for the nested check to refuse). Anything
 * else is left as it is for the field's own rules to refuse.
 */
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

/**
 * What a nested DTO's rules need from around it (the scenario's variable names, the names of earlier actions),
 * attached where the body is turned into DTOs; a symbol, so it is neither a field nor serialised.
 */
export function withContext<T extends object, C>(dto: T, context: C): T {
  Object.defineProperty(dto, CONTEXT, { value: context, enumerable: false });
  return dto;
}

export function contextOf<C>(dto: object): C | undefined {
  return (dto as Record<symbol, C | undefined>)[CONTEXT];
}
