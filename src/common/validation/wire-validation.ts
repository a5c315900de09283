import { ClassConstructor } from 'class-transformer';
import { getMetadataStorage, ValidationError, validateSync, ValidatorOptions } from 'class-validator';
import { AppError, ErrorDetail } from '../errors';
import { isPlainObject, itemProblems, toDto, WHOLE_OBJECT } from './wire-decorators';

export const WIRE_VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  // Kept on the errors so that toErrorDetails can name array items and unknown fields; never sent.
  validationError: { target: true, value: true },
};

const NESTED = 'nestedValidation';
const WHITELIST = 'whitelistValidation';
const REQUIRED = 'required';
const OWN_CHECK = /^(problem|whole|items|entries)\d+$/;

function declaredFields(target: unknown): string[] {
  if (typeof target !== 'object' || target === null) return [];
  const metadata = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].filter((name) => name !== WHOLE_OBJECT);
}

function unknownFieldProblem(allowed: readonly string[]): string {
  return allowed.length > 0
    ? `is not a known field; allowed fields are ${allowed.join(', ')}`
    : 'is not a known field';
}

/** Decorators run nearest-first, so the first rule in reading order is the last recorded. */
function firstProblem(error: ValidationError): [rule: string, problem: string] | undefined {
  const entries = Object.entries(error.constraints ?? {});
  if (entries.length === 0) return undefined;
  if (entries.length === 1 && entries[0][0] === WHITELIST) {
    return [WHITELIST, unknownFieldProblem(declaredFields(error.target))];
  }
  const rules = entries.filter(([name]) => name !== NESTED);
  const first = rules.length > 0 ? rules[rules.length - 1] : entries[0];
  // Absent, yet a type rule ran: it is required, not "must be a string" (the project's own checks say it themselves).
  if (error.value === undefined && !OWN_CHECK.test(first[0])) return [REQUIRED, 'is required'];
  return first;
}

function childPath(parent: string, parentValue: unknown, property: string): string {
  if (property === WHOLE_OBJECT) return parent;
  if (Array.isArray(parentValue)) return `${parent}[${property}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

/** A field whose own rule failed does not also report what is inside it. */
export function toErrorDetails(
  errors: readonly ValidationError[],
  parent = '',
  parentValue?: unknown,
): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = childPath(parent, parentValue, error.property);
    const first = firstProblem(error);
    if (first === undefined) return toErrorDetails(error.children ?? [], field, error.value);
    const items = itemProblems(first[0], error.value, error.target);
    if (items) return items.map(([step, problem]) => ({ field: `${field}${step}`, problem }));
    return [{ field: field === '' ? 'body' : field, problem: first[1] }];
  });
}

export const NOT_AN_OBJECT = (): AppError =>
  AppError.validation([{ field: 'body', problem: 'the request body must be a JSON object' }]);

export function validationFailure(errors: readonly ValidationError[]): AppError {
  const details = toErrorDetails(errors);
  return AppError.validation(details.length > 0 ? details : [{ field: 'body', problem: 'is invalid' }]);
}

/** Synchronously, with the global pipe's rules: for a body kept to run later or nested in another request. */
export function parseWire<T extends object>(dto: ClassConstructor<T>, value: unknown): T {
  if (!isPlainObject(value)) throw NOT_AN_OBJECT();
  const instance = toDto(dto, value);
  const errors = validateSync(instance, WIRE_VALIDATOR_OPTIONS);
  if (errors.length > 0) throw validationFailure(errors);
  return instance;
}
