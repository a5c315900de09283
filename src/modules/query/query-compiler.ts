import { DATA_TABLE, quoteIdentifier, ROW_COLUMN } from '../datasets/datasets.types';
import { Condition, OrderTerm, QuerySpec, ScalarValue } from './query-grammar';

export type SqlParam = string | number;

export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** The order actually applied: the requested terms, then the tiebreak that makes it total. */
  readonly orderBy: readonly OrderTerm[];
}

/** Resolves a validated column name to its SQL: a quoted stored column, or a formula's translated expression. */
export type ColumnSql = (name: string) => string;

function bind(value: ScalarValue): SqlParam {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

function condition(c: Condition, columnSql: ColumnSql, params: SqlParam[]): string {
  const column = columnSql(c.column);
  const scalar = c.value as ScalarValue;
  switch (c.op) {
    case 'eq':
      params.push(bind(scalar));
      return `${column} = ?`;
    case 'ne':
      params.push(bind(scalar));
      return `(${column} <> ? or ${column} is null)`;
    case 'lt':
      params.push(bind(scalar));
      return `${column} < ?`;
    case 'lte':
      params.push(bind(scalar));
      return `${column} <= ?`;
    case 'gt':
      params.push(bind(scalar));
      return `${column} > ?`;
    case 'gte':
      params.push(bind(scalar));
      return `${column} >= ?`;
    case 'in': {
      const values = c.value as readonly ScalarValue[];
      for (const value of values) params.push(bind(value));
      return `${column} in (${values.map(() => '?').join(', ')})`;
    }
    case 'contains':
      params.push(scalar as string);
      return `instr(${column}, ?) > 0`;
    case 'starts_with':
      params.push(scalar as string, scalar as string);
      return `substr(${column}, 1, length(?)) = ?`;
    case 'is_null':
      return `${column} is null`;
    case 'not_null':
      return `${column} is not null`;
  }
}

/**
 * Turns a validated query into one parameterised SELECT. Identifiers come only from the schema (through
 * `columnSql`), every value is a bound parameter, and the ORDER BY always ends in a total order: the row ordinal for
 * row queries, every group key for grouped ones. It asks for one row more than the limit to detect truncation.
 */
export function compileQuery(spec: QuerySpec, columnSql: ColumnSql): CompiledQuery {
  const params: SqlParam[] = [];
  const grouped = spec.groupBy.length > 0 || spec.aggregates.length > 0;
  const outputs = grouped
    ? [
        ...spec.groupBy.map((name) => `${columnSql(name)} as ${quoteIdentifier(name)}`),
        ...spec.aggregates.map((a) => {
          const argument = a.column === undefined ? '*' : columnSql(a.column);
          return `${a.function}(${argument}) as ${quoteIdentifier(a.as)}`;
        }),
      ]
    : spec.select.map((name) => `${columnSql(name)} as ${quoteIdentifier(name)}`);
  const where = spec.where.map((c) => condition(c, columnSql, params));

  const orderBy: OrderTerm[] = [...spec.orderBy];
  if (grouped) {
    for (const key of spec.groupBy) {
      if (!orderBy.some((t) => t.column === key)) orderBy.push({ column: key, direction: 'asc' });
    }
  } else {
    orderBy.push({ column: ROW_COLUMN, direction: 'asc' });
  }
  const orderSql = orderBy.map((term) => {
    const expression =
      grouped || term.column === ROW_COLUMN ? quoteIdentifier(term.column) : columnSql(term.column);
    return `${expression} ${term.direction}`;
  });

  let sql = `select ${outputs.length > 0 ? outputs.join(', ') : 'count(*) as "count_rows"'} from ${DATA_TABLE}`;
  if (where.length > 0) sql += ` where ${where.join(' and ')}`;
  if (spec.groupBy.length > 0) sql += ` group by ${spec.groupBy.map((name) => columnSql(name)).join(', ')}`;
  if (orderSql.length > 0) sql += ` order by ${orderSql.join(', ')}`;
  sql += ' limit ? offset ?';
  params.push(spec.limit + 1, spec.offset);
  return { sql, params, orderBy };
}
