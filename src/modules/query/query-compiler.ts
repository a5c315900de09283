import { DATA_TABLE, quoteIdentifier, ROW_COLUMN } from '../datasets/datasets.types';
import { Condition, OrderTerm, QuerySpec, ScalarValue } from './query-grammar';

export type SqlParam = string | number | boolean;

export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  readonly orderBy: readonly OrderTerm[];
}

export type ColumnSql = (name: string) => string;
/**
 * DuckDB's threads vary the order in which doubles are added, so an inexact column is summed as a fixed-point
 * DECIMAL(38, scale) (exact in any order), or, when that may overflow, in row order (one list per group).
 */
export type SumForm =
  | { readonly kind: 'exact' }
  | { readonly kind: 'fixed'; readonly scale: number }
  | { readonly kind: 'ordered' };
export type SumFormOf = (name: string) => SumForm;
/** How the storage reads a column's values, where it differs from the column's own expression. */
export interface StoredForms {
  readonly sumForm?: SumFormOf;
  /** A value of the named column as answers carry it: its expression, possibly wrapped. */
  readonly answerSql?: (name: string, expression: string) => string;
  /** The placeholder an equality test on the named column compares it with. */
  readonly memberSql?: (name: string) => string;
}

function aggregateSql(fn: string, argument: string, form: SumForm): string {
  if (fn !== 'sum' && fn !== 'avg') return `${fn}(${argument})`;
  switch (form.kind) {
    case 'exact':
      return `${fn}(${argument})`;
    case 'fixed':
      return `${fn}(cast(${argument} as decimal(38, ${form.scale})))`;
    case 'ordered':
      return `list_${fn}(list(${argument} order by ${quoteIdentifier(ROW_COLUMN)}))`;
  }
}

function condition(
  c: Condition,
  columnSql: ColumnSql,
  memberSql: (name: string) => string,
  params: SqlParam[],
): string {
  const column = columnSql(c.column);
  const scalar = c.value as ScalarValue;
  switch (c.op) {
    case 'eq':
      params.push(scalar);
      return `${column} = ${memberSql(c.column)}`;
    case 'ne':
      params.push(scalar);
      return `(${column} <> ? or ${column} is null)`;
    case 'lt':
      params.push(scalar);
      return `${column} < ?`;
    case 'lte':
      params.push(scalar);
      return `${column} <= ?`;
    case 'gt':
      params.push(scalar);
      return `${column} > ?`;
    case 'gte':
      params.push(scalar);
      return `${column} >= ?`;
    case 'in': {
      const values = c.value as readonly ScalarValue[];
      for (const value of values) params.push(value);
      return `${column} in (${values.map(() => memberSql(c.column)).join(', ')})`;
    }
    case 'contains':
      params.push(scalar);
      return `instr(${column}, ?) > 0`;
    case 'starts_with':
      params.push(scalar, scalar);
      return `substr(${column}, 1, length(?)) = ?`;
    case 'is_null':
      return `${column} is null`;
    case 'not_null':
      return `${column} is not null`;
  }
}

export function compileWhere(
  conditions: readonly Condition[],
  columnSql: ColumnSql,
  memberSql: (name: string) => string = () => '?',
): { readonly sql: string; readonly params: readonly SqlParam[] } {
  const params: SqlParam[] = [];
  const terms = conditions.map((c) => condition(c, columnSql, memberSql, params));
  return { sql: terms.length > 0 ? ` where ${terms.join(' and ')}` : '', params };
}

/** The ORDER BY always ends in a total order; one row more than the limit is asked for to detect truncation. */
export function compileQuery(
  spec: QuerySpec,
  columnSql: ColumnSql,
  {
    sumForm = () => ({ kind: 'exact' }),
    answerSql = (_, expression) => expression,
    memberSql = () => '?',
  }: StoredForms = {},
): CompiledQuery {
  const params: SqlParam[] = [];
  const grouped = spec.groupBy.length > 0 || spec.aggregates.length > 0;
  const outputs = grouped
    ? [
        ...spec.groupBy.map((name) => `${answerSql(name, columnSql(name))} as ${quoteIdentifier(name)}`),
        ...spec.aggregates.map((a) => {
          if (a.column === undefined) return `${a.function}(*) as ${quoteIdentifier(a.as)}`;
          const sql = aggregateSql(a.function, columnSql(a.column), sumForm(a.column));
          const answered = a.function === 'min' || a.function === 'max' ? answerSql(a.column, sql) : sql;
          return `${answered} as ${quoteIdentifier(a.as)}`;
        }),
      ]
    : spec.select.map((name) => `${answerSql(name, columnSql(name))} as ${quoteIdentifier(name)}`);
  const where = compileWhere(spec.where, columnSql, memberSql);
  params.push(...where.params);

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
    // SQLite's order, which answers have always had: nulls before every value ascending, after it descending.
    return `${expression} ${term.direction} nulls ${term.direction === 'asc' ? 'first' : 'last'}`;
  });

  let sql = `select ${outputs.length > 0 ? outputs.join(', ') : 'count(*) as "count_rows"'} from ${DATA_TABLE}`;
  sql += where.sql;
  if (spec.groupBy.length > 0) sql += ` group by ${spec.groupBy.map((name) => columnSql(name)).join(', ')}`;
  // Ordered by the row ordinal alone, rows come as the scan yields them: in insertion order, which is `_row` order, while
  // the query instance preserves insertion order (openQueryInstance); the limit then stops the scan early.
  const rowOrderOnly = !grouped && orderBy.length === 1;
  if (orderSql.length > 0 && !rowOrderOnly) sql += ` order by ${orderSql.join(', ')}`;
  // Validated integers, written into the text: DuckDB would bind a JavaScript number as a double.
  sql += ` limit ${spec.limit + 1} offset ${spec.offset}`;
  return { sql, params, orderBy };
}
