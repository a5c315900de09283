import { IsNumber, IsString, registerDecorator, ValidateIf } from 'class-validator';
import { ExpressionError, parseExpression } from '../expression/expression';
import { Problem } from './wire-decorators';

/**
 * Rules shared by several bodies, each a decorator. Several rules on one field report the first that fails in
 * reading order, so `Rules(a, b)` reads like `@a @b`.
 */
export function Rules(...rules: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    // class-validator runs a field's rules from the one applied first; the last to run is reported.
    for (const rule of [...rules].reverse()) rule(target, property);
  };
}

export function Required(): PropertyDecorator {
  return Problem((value) => (value === undefined ? 'is required' : undefined));
}

/** A JSON number that is finite: JSON cannot carry Infinity, but 1e999 parses to it. */
export function FiniteNumber(): PropertyDecorator {
  return Rules(
    IsNumber({ allowNaN: true, allowInfinity: true }, { message: 'must be a number' }),
    Problem((value) =>
      typeof value === 'number' && !Number.isFinite(value) ? 'must be a finite number' : undefined,
    ),
  );
}

/** |value| ≤ bound, for a finite number (other values are left to the rules above it). */
export function WithinMagnitude(bound: number, problem: string): PropertyDecorator {
  return Problem((value) =>
    typeof value === 'number' && Number.isFinite(value) && Math.abs(value) > bound ? problem : undefined,
  );
}

/** A model expression (DESIGN.md §5) of at most `maxLength` characters over the names `known` gives for its DTO. */
export function ValidExpression<T extends object>(
  maxLength: number,
  known: (dto: T) => readonly string[],
): PropertyDecorator {
  return Problem<T>((value, dto) => {
    if (typeof value !== 'string') return 'must be a string expression';
    if (value.length > maxLength) return `must be at most ${maxLength} characters`;
    try {
      parseExpression(value, known(dto));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return error.message;
    }
    return undefined;
  });
}

/** The name the contract generator recognises (src/cli/openapi-document/request-schemas.ts) to describe `T | null`. */
export const NULLABLE_RULE = 'nullable';

/**
 * A field that may be sent as `null` (to clear it) or left out; any other value is checked by the rules written
 * below it. Described in the contract as the field's type or `null`.
 */
export function Nullable(): PropertyDecorator {
  return (target, property) => {
    ValidateIf((_object, value) => value !== null && value !== undefined)(target, property);
    registerDecorator({
      name: NULLABLE_RULE,
      target: target.constructor,
      propertyName: String(property),
      validator: { validate: () => true },
    });
  };
}

const MAX_URL_LENGTH = 2048;

/** Why `value` is not a URL the daemon may later call (whether egress allows it is decided at delivery time). */
export function httpUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  return url.username || url.password ? 'must not carry credentials' : undefined;
}

/** An absolute http(s) URL without credentials, at most 2048 characters. */
export function HttpUrl(): PropertyDecorator {
  return Rules(IsString({ message: 'must be a string' }), Problem(httpUrlProblem));
}

const LEADING_KEYWORD = /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/;
const READING_KEYWORDS = ['select', 'with', 'values'];

/**
 * Why `sql` is not a reading statement, read from its leading keyword before any database sees it (a SQL report on
 * a dataset, a connector's `query`); undefined when it starts as one.
 */
export function readingStatementProblem(sql: string): string | undefined {
  const keyword = LEADING_KEYWORD.exec(sql)?.[1]?.toLowerCase();
  if (keyword === undefined || READING_KEYWORDS.includes(keyword)) return undefined;
  return `${keyword.toUpperCase()} statements are not allowed`;
}

/** A SQL query that must be one read-only SELECT (WITH and VALUES read too). */
export function ReadingStatement(): PropertyDecorator {
  return Problem((value) => {
    const problem = typeof value === 'string' ? readingStatementProblem(value) : undefined;
    return problem && `must be one read-only SELECT statement: ${problem}`;
  });
}
