import {
  evaluate,
  ExpressionError,
  parseExpression,
  referencedNames,
} from '../../src/common/expression/expression';

const names = ['a', 'b', 'c', 'revenue', 'cost'];
const run = (text: string, scope: Record<string, number> = {}): number =>
  evaluate(parseExpression(text, Object.keys(scope).length > 0 ? Object.keys(scope) : names), scope);

function failure(text: string, known: readonly string[] = names): ExpressionError {
  try {
    parseExpression(text, known);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`"${text}" parsed`);
}

describe('parseExpression', () => {
  it('follows the usual precedence and associativity', () => {
    expect(run('1 + 2 * 3')).toBe(7);
    expect(run('(1 + 2) * 3')).toBe(9);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('2 ^ 3 ^ 2')).toBe(512);
    expect(run('-2 ^ 2')).toBe(-4);
    expect(run('2 ^ -1')).toBe(0.5);
    expect(run('--3')).toBe(3);
    expect(run('+3')).toBe(3);
    expect(run('8 / 4 / 2')).toBe(1);
    expect(run('1 + 2 < 4')).toBe(1);
    expect(run('1 < 2 == 1')).toBe(1);
  });

  it('reads numbers in decimal and exponent notation', () => {
    expect(run('.5 + 1.25e2 + 3E-1')).toBe(125.8);
  });

  it('evaluates names, functions and comparisons like the engine', () => {
    const scope = { revenue: 120, cost: 100 };
    expect(run('revenue - cost', scope)).toBe(20);
    expect(run('if(revenue > cost, revenue - cost, 0)', scope)).toBe(20);
    expect(run('if(revenue < cost, 1, 2)', scope)).toBe(2);
    expect(run('min(revenue, cost, 7)', scope)).toBe(7);
    expect(run('max(revenue, cost)', scope)).toBe(120);
    expect(run('abs(cost - revenue)', scope)).toBe(20);
    expect(run('sqrt(revenue + 24)', scope)).toBe(12);
    expect(run('log(exp(2))', scope)).toBe(2);
    expect(run('(revenue >= 120) + (cost <= 99) + (cost != 100) + (cost == 100)', scope)).toBe(2);
  });

  it('takes the known names as a set, an array or a predicate', () => {
    expect(() => parseExpression('x + y', new Set(['x', 'y']))).not.toThrow();
    expect(() => parseExpression('x + y', ['x', 'y'])).not.toThrow();
    expect(() => parseExpression('col_1 * 2', (n) => n.startsWith('col_'))).not.toThrow();
  });

  it('lets a variable shadow a function name when used without parentheses', () => {
    expect(run('min + 1', { min: 4 })).toBe(5);
  });

  it('lists the names an expression reads', () => {
    expect(referencedNames(parseExpression('a * b + if(c > a, -c, 1)', names))).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['a + foo', "unknown name 'foo'", 4],
    ['a +', 'unexpected end of expression', 3],
    ['', 'the expression is empty', 0],
    ['   ', 'the expression is empty', 3],
    ['(a + b', "expected ')' but found 'end of expression'", 6],
    ['a + b)', "unexpected ')'", 5],
    ['a $ b', "unexpected character '$'", 2],
    ['a = b', "unexpected '=' (use '==' to compare)", 2],
    ['foo(a)', "unknown function 'foo'", 0],
    ['2 * abs(a, b)', "function 'abs' takes 1 argument, got 2", 4],
    ['if(a, b)', "function 'if' takes 3 arguments, got 2", 0],
    ['min()', "function 'min' takes at least 1 argument, got 0", 0],
    ['sqrt + 1', "'sqrt' is a function and needs arguments, e.g. sqrt(...)", 0],
    ['max(a b)', "expected ',' or ')' but found 'b'", 6],
    ['1.2.3', 'malformed number', 0],
    ['3x', 'malformed number', 0],
    ['1e+', 'malformed number exponent', 1],
    ['1e999', "number '1e999' is out of range", 0],
    ['a * * b', "unexpected '*'", 4],
  ])('rejects %j: %s at position %d', (text, problem, position) => {
    const error = failure(text);
    expect(error.problem).toBe(problem);
    expect(error.position).toBe(position);
    expect(error.message).toBe(`${problem} at position ${position}`);
  });

  it('counts positions in characters, not UTF-16 units', () => {
    const error = failure('a + "😀" + zz');
    expect(error.position).toBe(4);
    expect(failure('(𝑥)').position).toBe(1);
  });

  it('refuses nesting deeper than 256 levels without overflowing the stack', () => {
    expect(() => parseExpression(`${'('.repeat(200)}a${')'.repeat(200)}`, names)).not.toThrow();
    expect(failure(`${'('.repeat(300)}a${')'.repeat(300)}`).problem).toBe('expression nested too deeply');
    expect(failure(`${'-'.repeat(5000)}a`).problem).toBe('expression nested too deeply');
  });
});

describe('evaluate', () => {
  it('fails with the position when a name has no value', () => {
    const ast = parseExpression('a + b', ['a', 'b']);
    expect(() => evaluate(ast, { a: 1 })).toThrow("no value for 'b' at position 4");
  });

  it('accepts a Map scope and follows IEEE 754 for division by zero', () => {
    const ast = parseExpression('a / b', ['a', 'b']);
    expect(
      evaluate(
        ast,
        new Map([
          ['a', 1],
          ['b', 0],
        ]),
      ),
    ).toBe(Infinity);
    expect(
      Number.isNaN(
        evaluate(
          ast,
          new Map([
            ['a', 0],
            ['b', 0],
          ]),
        ),
      ),
    ).toBe(true);
  });

  it("raises to a power as the engine's std::pow does, where JavaScript differs", () => {
    // C's pow gives 1 for 1 to any power and for -1 to ±Infinity; JavaScript's ** gives NaN.
    expect(run('(a + 1) ^ exp(1e300)', { a: 0 })).toBe(1);
    expect(run('a ^ (1 / 0)', { a: -1 })).toBe(1);
    expect(run('a ^ (0 - 1 / 0)', { a: -1 })).toBe(1);
    expect(run('a ^ (0 / 0)', { a: 1 })).toBe(1);
    expect(Number.isNaN(run('a ^ 0.5', { a: -1 }))).toBe(true);
    expect(run('a ^ (1 / 0)', { a: 2 })).toBe(Infinity);
  });

  it('evaluates only the branch if() takes', () => {
    const ast = parseExpression('if(a > 0, a, missing)', ['a', 'missing']);
    expect(evaluate(ast, { a: 3 })).toBe(3);
  });

  it('does not read inherited properties as values', () => {
    const ast = parseExpression('toString', ['toString']);
    expect(() => evaluate(ast, {})).toThrow(ExpressionError);
  });
});
