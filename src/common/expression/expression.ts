/**
 * The model expression language of DESIGN.md §5, the same grammar the native engine compiles:
 *
 *   comparison := additive (('<' | '<=' | '>' | '>=' | '==' | '!=') additive)*
 *   additive   := multiplicative (('+' | '-') multiplicative)*
 *   multiplicative := unary (('*' | '/') unary)*
 *   unary      := ('-' | '+') unary | power          (so -2^2 = -(2^2))
 *   power      := primary ('^' unary)?               (right-associative: 2^3^2 = 2^(3^2))
 *   primary    := number | name | name '(' args ')' | '(' comparison ')'
 *
 * Positions are 0-based character (code point) offsets into the text, as the engine reports them.
 */

export type BinaryOperator = '+' | '-' | '*' | '/' | '^' | '<' | '<=' | '>' | '>=' | '==' | '!=';
export type FunctionName = 'min' | 'max' | 'abs' | 'sqrt' | 'exp' | 'log' | 'if';

export type Expression =
  | { readonly kind: 'number'; readonly value: number; readonly position: number }
  | { readonly kind: 'name'; readonly name: string; readonly position: number }
  | { readonly kind: 'negate'; readonly operand: Expression; readonly position: number }
  | {
      readonly kind: 'binary';
      readonly operator: BinaryOperator;
      readonly left: Expression;
      readonly right: Expression;
      readonly position: number;
    }
  | {
      readonly kind: 'call';
      readonly fn: FunctionName;
      readonly args: readonly Expression[];
      readonly position: number;
    };

export class ExpressionError extends Error {
  constructor(
    readonly problem: string,
    readonly position: number,
  ) {
    super(`${problem} at position ${position}`);
    this.name = 'ExpressionError';
  }
}

export type KnownNames = ReadonlySet<string> | readonly string[] | ((name: string) => boolean);

export const MAX_EXPRESSION_NESTING = 256;

const FUNCTIONS: Readonly<Record<FunctionName, { min: number; max: number }>> = {
  min: { min: 1, max: Infinity },
  max: { min: 1, max: Infinity },
  abs: { min: 1, max: 1 },
  sqrt: { min: 1, max: 1 },
  exp: { min: 1, max: 1 },
  log: { min: 1, max: 1 },
  if: { min: 3, max: 3 },
};

function isFunctionName(name: string): name is FunctionName {
  return Object.prototype.hasOwnProperty.call(FUNCTIONS, name);
}

type TokenKind = 'end' | 'number' | 'name' | 'operator' | '(' | ')' | ',';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly value: number;
  /** UTF-16 offset; converted to a code point position only when reported. */
  readonly offset: number;
}

const COMPARISONS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', '==', '!=']);
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isNameStart = (c: string): boolean => (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_';
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

function toLookup(known: KnownNames): (name: string) => boolean {
  if (typeof known === 'function') return known;
  const set = known instanceof Set ? known : new Set(known as readonly string[]);
  return (name) => set.has(name);
}

class Parser {
  private offset = 0;
  private token: Token = { kind: 'end', text: '', value: 0, offset: 0 };
  private readonly isKnown: (name: string) => boolean;

  constructor(
    private readonly text: string,
    known: KnownNames,
  ) {
    this.isKnown = toLookup(known);
  }

  parse(): Expression {
    this.advance();
    if (this.token.kind === 'end') this.fail('the expression is empty', this.token.offset);
    const root = this.comparison(0);
    if (this.peek() !== 'end') this.fail(`unexpected '${this.token.text}'`, this.token.offset);
    return root;
  }

  private fail(problem: string, offset: number): never {
    throw new ExpressionError(problem, codePointIndex(this.text, offset));
  }

  private advance(): void {
    const s = this.text;
    while (this.offset < s.length && isWhitespace(s[this.offset])) this.offset++;
    const start = this.offset;
    if (start >= s.length) {
      this.token = { kind: 'end', text: 'end of expression', value: 0, offset: start };
      return;
    }
    const c = s[start];
    if (isDigit(c) || (c === '.' && isDigit(s[start + 1] ?? ''))) {
      this.token = this.number(start);
      return;
    }
    if (isNameStart(c)) {
      let end = start;
      while (end < s.length && (isNameStart(s[end]) || isDigit(s[end]))) end++;
      this.offset = end;
      this.token = { kind: 'name', text: s.slice(start, end), value: 0, offset: start };
      return;
    }
    const two = s.slice(start, start + 2);
    if (two === '<=' || two === '>=' || two === '==' || two === '!=') {
      this.offset = start + 2;
      this.token = { kind: 'operator', text: two, value: 0, offset: start };
      return;
    }
    if ('+-*/^<>'.includes(c)) {
      this.offset = start + 1;
      this.token = { kind: 'operator', text: c, value: 0, offset: start };
      return;
    }
    if (c === '(' || c === ')' || c === ',') {
      this.offset = start + 1;
      this.token = { kind: c, text: c, value: 0, offset: start };
      return;
    }
    if (c === '=') this.fail("unexpected '=' (use '==' to compare)", start);
    const code = s.codePointAt(start) ?? 0;
    if (code < 0x20 || code >= 0x7f) this.fail('unexpected character', start);
    this.fail(`unexpected character '${c}'`, start);
  }

  private number(start: number): Token {
    const s = this.text;
    let end = start;
    while (end < s.length && isDigit(s[end])) end++;
    if (s[end] === '.') {
      end++;
      while (end < s.length && isDigit(s[end])) end++;
    }
    if (s[end] === 'e' || s[end] === 'E') {
      let k = end + 1;
      if (s[k] === '+' || s[k] === '-') k++;
      if (!isDigit(s[k] ?? '')) this.fail('malformed number exponent', end);
      while (k < s.length && isDigit(s[k])) k++;
      end = k;
    }
    if (end < s.length && (isNameStart(s[end]) || s[end] === '.')) this.fail('malformed number', start);
    const text = s.slice(start, end);
    const value = Number(text);
    if (!Number.isFinite(value)) this.fail(`number '${text}' is out of range`, start);
    this.offset = end;
    return { kind: 'number', text, value, offset: start };
  }

  /** The current token's kind, read through a call so the compiler does not keep a narrowing across advance(). */
  private peek(): TokenKind {
    return this.token.kind;
  }

  private isOperator(...ops: string[]): boolean {
    return this.token.kind === 'operator' && ops.includes(this.token.text);
  }

  private checkDepth(depth: number): void {
    if (depth > MAX_EXPRESSION_NESTING) this.fail('expression nested too deeply', this.token.offset);
  }

  private comparison(depth: number): Expression {
    this.checkDepth(depth);
    let left = this.additive(depth);
    while (this.token.kind === 'operator' && COMPARISONS.has(this.token.text)) {
      const { text, offset } = this.token;
      this.advance();
      left = this.binary(text as BinaryOperator, left, this.additive(depth), offset);
    }
    return left;
  }

  private additive(depth: number): Expression {
    let left = this.multiplicative(depth);
    while (this.isOperator('+', '-')) {
      const { text, offset } = this.token;
      this.advance();
      left = this.binary(text as BinaryOperator, left, this.multiplicative(depth), offset);
    }
    return left;
  }

  private multiplicative(depth: number): Expression {
    let left = this.unary(depth);
    while (this.isOperator('*', '/')) {
      const { text, offset } = this.token;
      this.advance();
      left = this.binary(text as BinaryOperator, left, this.unary(depth), offset);
    }
    return left;
  }

  private unary(depth: number): Expression {
    this.checkDepth(depth);
    if (this.isOperator('-', '+')) {
      const { text, offset } = this.token;
      this.advance();
      const operand = this.unary(depth + 1);
      return text === '-'
        ? { kind: 'negate', operand, position: codePointIndex(this.text, offset) }
        : operand;
    }
    return this.power(depth);
  }

  private power(depth: number): Expression {
    const base = this.primary(depth);
    if (!this.isOperator('^')) return base;
    const offset = this.token.offset;
    this.advance();
    return this.binary('^', base, this.unary(depth + 1), offset);
  }

  private primary(depth: number): Expression {
    this.checkDepth(depth);
    const token = this.token;
    const position = codePointIndex(this.text, token.offset);
    switch (token.kind) {
      case 'number':
        this.advance();
        return { kind: 'number', value: token.value, position };
      case '(': {
        this.advance();
        const inner = this.comparison(depth + 1);
        if (this.token.kind !== ')')
          this.fail(`expected ')' but found '${this.token.text}'`, this.token.offset);
        this.advance();
        return inner;
      }
      case 'name': {
        this.advance();
        if (this.token.kind === '(') return this.call(token, depth);
        if (!this.isKnown(token.text)) {
          if (isFunctionName(token.text)) {
            this.fail(
              `'${token.text}' is a function and needs arguments, e.g. ${token.text}(...)`,
              token.offset,
            );
          }
          this.fail(`unknown name '${token.text}'`, token.offset);
        }
        return { kind: 'name', name: token.text, position };
      }
      case 'end':
        return this.fail('unexpected end of expression', token.offset);
      case 'operator':
      case ')':
      case ',':
        return this.fail(`unexpected '${token.text}'`, token.offset);
    }
  }

  private call(name: Token, depth: number): Expression {
    if (!isFunctionName(name.text)) this.fail(`unknown function '${name.text}'`, name.offset);
    const fn = name.text;
    this.advance();
    const args: Expression[] = [];
    if (this.token.kind !== ')') {
      for (;;) {
        args.push(this.comparison(depth + 1));
        if (this.token.kind === ',') {
          this.advance();
          continue;
        }
        if (this.peek() === ')') break;
        this.fail(`expected ',' or ')' but found '${this.token.text}'`, this.token.offset);
      }
    }
    this.advance();
    const arity = FUNCTIONS[fn];
    if (args.length < arity.min || args.length > arity.max) {
      const want = arity.max === Infinity ? `at least ${arity.min}` : String(arity.min);
      const noun = arity.min === 1 ? 'argument' : 'arguments';
      this.fail(`function '${fn}' takes ${want} ${noun}, got ${args.length}`, name.offset);
    }
    return { kind: 'call', fn, args, position: codePointIndex(this.text, name.offset) };
  }

  private binary(operator: BinaryOperator, left: Expression, right: Expression, offset: number): Expression {
    return { kind: 'binary', operator, left, right, position: codePointIndex(this.text, offset) };
  }
}

function codePointIndex(text: string, utf16Offset: number): number {
  let count = 0;
  for (let i = 0; i < utf16Offset && i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) count++;
  }
  return count;
}

export function parseExpression(text: string, knownNames: KnownNames): Expression {
  return new Parser(text, knownNames).parse();
}

export function referencedNames(expression: Expression): string[] {
  const seen = new Set<string>();
  const visit = (e: Expression): void => {
    switch (e.kind) {
      case 'number':
        return;
      case 'name':
        seen.add(e.name);
        return;
      case 'negate':
        visit(e.operand);
        return;
      case 'binary':
        visit(e.left);
        visit(e.right);
        return;
      case 'call':
        e.args.forEach(visit);
        return;
    }
  };
  visit(expression);
  return [...seen];
}

export type Scope = ReadonlyMap<string, number> | Readonly<Record<string, number>>;

function lookup(scope: Scope, name: string, position: number): number {
  let value: unknown;
  if (scope instanceof Map) value = scope.get(name);
  else if (Object.prototype.hasOwnProperty.call(scope, name))
    value = (scope as Readonly<Record<string, number>>)[name];
  if (typeof value !== 'number') throw new ExpressionError(`no value for '${name}'`, position);
  return value;
}

/** `^` as the engine's `std::pow` (C99 Annex F): unlike `**`, 1 to any power and −1 to ±Infinity give 1. */
function power(a: number, b: number): number {
  if (b === 2) return a * a;
  if (a === 1 || (a === -1 && (b === Infinity || b === -Infinity))) return 1;
  return Math.pow(a, b);
}

function applyBinary(operator: BinaryOperator, a: number, b: number): number {
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '^':
      return power(a, b);
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
  }
}

/** Evaluates one row with the engine's semantics: comparisons give 1/0, `if` evaluates only the chosen branch. */
export function evaluate(expression: Expression, scope: Scope): number {
  switch (expression.kind) {
    case 'number':
      return expression.value;
    case 'name':
      return lookup(scope, expression.name, expression.position);
    case 'negate':
      return -evaluate(expression.operand, scope);
    case 'binary':
      return applyBinary(
        expression.operator,
        evaluate(expression.left, scope),
        evaluate(expression.right, scope),
      );
    case 'call':
      return evaluateCall(expression.fn, expression.args, scope);
  }
}

function evaluateCall(fn: FunctionName, args: readonly Expression[], scope: Scope): number {
  switch (fn) {
    case 'if':
      return evaluate(args[0], scope) !== 0 ? evaluate(args[1], scope) : evaluate(args[2], scope);
    case 'min':
    case 'max': {
      let acc = evaluate(args[0], scope);
      for (let i = 1; i < args.length; i++) {
        const next = evaluate(args[i], scope);
        // Same NaN behaviour as the engine: a NaN on the right never replaces the accumulator.
        if (fn === 'min' ? next < acc : next > acc) acc = next;
      }
      return acc;
    }
    case 'abs':
      return Math.abs(evaluate(args[0], scope));
    case 'sqrt':
      return Math.sqrt(evaluate(args[0], scope));
    case 'exp':
      return Math.exp(evaluate(args[0], scope));
    case 'log':
      return Math.log(evaluate(args[0], scope));
  }
}
