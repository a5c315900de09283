import { IsNumber, IsString, registerDecorator, ValidateIf } from 'class-validator';
import { ExpressionError, parseExpression } from '../expression/expression';
import { Problem } from './wire-decorators';

/** Several rules on one field report the first that fails in reading order, so `Rules(a, b)` reads like `@a @b`. */
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

export function WithinMagnitude(bound: number, problem: string): PropertyDecorator {
  return Problem((value) =>
    typeof value === 'number' && Number.isFinite(value) && Math.abs(value) > bound ? problem : undefined,
  );
}

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

export function HttpUrl(): PropertyDecorator {
  return Rules(IsString({ message: 'must be a string' }), Problem(httpUrlProblem));
}

const LEADING_KEYWORD = /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/;
const READING_KEYWORDS = ['select', 'with', 'values'];

export function readingStatementProblem(sql: string): string | undefined {
  const keyword = LEADING_KEYWORD.exec(sql)?.[1]?.toLowerCase();
  if (keyword === undefined || READING_KEYWORDS.includes(keyword)) return undefined;
  return `${keyword.toUpperCase()} statements are not allowed`;
}

export function ReadingStatement(): PropertyDecorator {
  return Problem((value) => {
    const problem = typeof value === 'string' ? readingStatementProblem(value) : undefined;
    return problem && `must be one read-only SELECT statement: ${problem}`;
  });
}
