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

/** Names come from the checked schema and literals from parsed values: no request text reaches the SQL. */
export function formulaSql(expression: Expression): string {
  const sql = termSql(expression);
  return formulaType(expression) === 'number' ? `(case when isfinite(${sql}) then ${sql} end)` : sql;
}

function termSql(expression: Expression): string {
  switch (expression.kind) {
    case 'number':
      return Number.isInteger(expression.value) ? `${expression.value}.0` : String(expression.value);
    case 'name':
      return `cast(${quoteIdentifier(expression.name)} as double)`;
    case 'negate':
      return `(-${termSql(expression.operand)})`;
    case 'binary': {
      const left = termSql(expression.left);
      const right = termSql(expression.right);
      switch (expression.operator) {
        case '+':
        case '-':
        case '*':
          return `(${left} ${expression.operator} ${right})`;
        case '/':
          return `(${left} / nullif(${right}, 0))`;
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
      const args = expression.args.map(termSql);
      switch (expression.fn) {
        case 'if':
          return `(case when cast(${args[0]} as double) <> 0 then ${args[1]} else ${args[2]} end)`;
        case 'min':
        case 'max':
          // min/max are aggregates in DuckDB; the engine's are of their arguments (one: the identity).
          return args.length === 1
            ? args[0]
            : `${expression.fn === 'min' ? 'least' : 'greatest'}(${args.join(', ')})`;
        case 'abs':
          return `abs(${args[0]})`;
        case 'sqrt':
          return `(case when ${args[0]} >= 0 then sqrt(${args[0]}) end)`;
        case 'exp':
          return `exp(${args[0]})`;
        case 'log':
          return `(case when ${args[0]} > 0 then ln(${args[0]}) end)`;
      }
    }
  }
}
