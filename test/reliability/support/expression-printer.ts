import fc from 'fast-check';
import { BinaryOperator, Expression, FunctionName } from '../../../src/common/expression/expression';

export const VARIABLES = ['x', 'y', 'z'] as const;

const BINARY: readonly BinaryOperator[] = ['+', '-', '*', '/', '^', '<', '<=', '>', '>=', '==', '!='];

/** Numbers as a model would write them: small integers, decimals, and the edges of a double's range. */
const numberValue = fc.oneof(
  fc.integer({ min: 0, max: 1000 }),
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.constantFrom(0, 0.5, 1e-300, 5e-324, 1e300, 1.7976931348623157e308),
);

/** Random ASTs of the model language, positions set to 0 (the printer does not keep them). */
export const expressionArbitrary: fc.Arbitrary<Expression> = fc.letrec<{ node: Expression }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 6, depthIdentifier: 'expression' },
    numberValue.map((value): Expression => ({ kind: 'number', value, position: 0 })),
    fc.constantFrom(...VARIABLES).map((name): Expression => ({ kind: 'name', name, position: 0 })),
    tie('node').map((operand): Expression => ({ kind: 'negate', operand, position: 0 })),
    fc
      .tuple(fc.constantFrom(...BINARY), tie('node'), tie('node'))
      .map(([operator, left, right]): Expression => ({ kind: 'binary', operator, left, right, position: 0 })),
    fc
      .tuple(
        fc.constantFrom<FunctionName>('min', 'max', 'abs', 'sqrt', 'exp', 'log', 'if'),
        fc.array(tie('node'), { minLength: 1, maxLength: 4 }),
      )
      .map(([fn, args]): Expression => {
        const arity = fn === 'if' ? 3 : fn === 'min' || fn === 'max' ? args.length : 1;
        const filled = Array.from({ length: arity }, (_, i) => args[i % args.length]);
        return { kind: 'call', fn, args: filled, position: 0 };
      }),
  ),
})).node;

/** Fully parenthesised text, so the printed form parses to exactly the printed tree whatever the precedence. */
export function printExpression(expression: Expression): string {
  switch (expression.kind) {
    case 'number':
      return String(expression.value);
    case 'name':
      return expression.name;
    case 'negate':
      return `(-${printExpression(expression.operand)})`;
    case 'binary':
      return `(${printExpression(expression.left)} ${expression.operator} ${printExpression(expression.right)})`;
    case 'call':
      return `${expression.fn}(${expression.args.map(printExpression).join(', ')})`;
  }
}

/** The tree without positions, for comparing a re-parsed tree with the generated one. */
export function withoutPositions(expression: Expression): unknown {
  switch (expression.kind) {
    case 'number':
      return { n: expression.value };
    case 'name':
      return { v: expression.name };
    case 'negate':
      return { neg: withoutPositions(expression.operand) };
    case 'binary':
      return {
        op: expression.operator,
        l: withoutPositions(expression.left),
        r: withoutPositions(expression.right),
      };
    case 'call':
      return { fn: expression.fn, args: expression.args.map(withoutPositions) };
  }
}

/** Text that is mostly the language's own tokens, so the parser's deeper paths are reached. */
export const expressionTextArbitrary: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...VARIABLES, 'min', 'max', 'if', 'sqrt', 'log', 'exp', 'abs', 'q', 'é', '\u0000'),
      fc.constantFrom(
        '(',
        ')',
        ',',
        '+',
        '-',
        '*',
        '/',
        '^',
        '<',
        '<=',
        '==',
        '!=',
        '=',
        '>=',
        '.',
        'e',
        ' ',
      ),
      fc.constantFrom('1', '2.5', '1e308', '1e309', '.5', '5.', '1e', '0x1', '9'.repeat(400)),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 40 },
  )
  .map((tokens) => tokens.join(''));
