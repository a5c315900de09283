import { Expression } from '../../common/expression/expression';
import { quoteIdentifier } from './sql-identifiers';

const COMPARISON_SQL: Readonly<Record<string, string>> = {
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  '==': '=',
  '!=': '<>',
};

/** A comparison at the top makes a boolean formula column; anything else is a number. */
export function formulaType(expression: Expression): 'number' | 'boolean' {
  return expression.kind === 'binary' && COMPARISON_SQL[expression.operator] !== undefined
    ? 'boolean'
    : 'number';
}

/**
 * Translates an engine expression to one SQLite expression over the stored columns, so filters and aggregates on a
 * formula run inside SQLite. Names were checked by the parser against the dataset's columns; numbers are printed
 * from parsed values, so nothing of the request text reaches the SQL. Division is real division, as in the engine;
 * where the engine would give Infinity or NaN (division by zero, log of a negative) SQLite gives NULL.
 */
export function formulaSql(expression: Expression): string {
  switch (expression.kind) {
    case 'number':
      return Number.isInteger(expression.value) ? `${expression.value}.0` : String(expression.value);
    case 'name':
      return quoteIdentifier(expression.name);
    case 'negate':
      return `(-${formulaSql(expression.operand)})`;
    case 'binary': {
      const left = formulaSql(expression.left);
      const right = formulaSql(expression.right);
      switch (expression.operator) {
        case '+':
        case '-':
        case '*':
          return `(${left} ${expression.operator} ${right})`;
        case '/':
          return `(cast(${left} as real) / ${right})`;
        case '^':
          return `pow(${left}, ${right})`;
        case '<':
        case '<=':
        case '>':
        case '>=':
        case '==':
        case '!=':
          return `(${left} ${COMPARISON_SQL[expression.operator]} ${right})`;
      }
      break;
    }
    case 'call': {
      const args = expression.args.map(formulaSql);
      switch (expression.fn) {
        case 'if':
          return `(case when ${args[0]} <> 0 then ${args[1]} else ${args[2]} end)`;
        case 'min':
        case 'max':
          // One-argument min/max would be SQLite's aggregate; the engine's is the identity.
          return args.length === 1 ? args[0] : `${expression.fn}(${args.join(', ')})`;
        case 'abs':
          return `abs(${args[0]})`;
        case 'sqrt':
          return `sqrt(${args[0]})`;
        case 'exp':
          return `exp(${args[0]})`;
        case 'log':
          return `ln(${args[0]})`;
      }
    }
  }
}
