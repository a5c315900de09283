import { IsNumber } from 'class-validator';
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
