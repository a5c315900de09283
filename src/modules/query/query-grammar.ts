import { AppError, ErrorDetail } from '../../common/errors';
import {
  ColumnType,
  isDateText,
  isNumericType,
  isTemporalType,
  isTimestampText,
} from '../datasets/datasets.types';

export const WHERE_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'contains',
  'starts_with',
  'is_null',
  'not_null',
] as const;
export type WhereOperator = (typeof WHERE_OPERATORS)[number];

export const AGGREGATE_FUNCTIONS = ['sum', 'avg', 'count', 'min', 'max'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 10_000;
export const MAX_OFFSET = 1_000_000_000;
const MAX_IN_VALUES = 1000;
const MAX_TEXT_VALUE = 10_000;
const MAX_TERMS = 100;

export type ScalarValue = string | number | boolean;

/** A column a query may name: a stored column or a formula, with its type. */
export interface QueryableColumn {
  readonly name: string;
  readonly type: ColumnType;
}

export interface Condition {
  readonly column: string;
  readonly op: WhereOperator;
  readonly value?: ScalarValue | readonly ScalarValue[];
}

export interface AggregateTerm {
  readonly function: AggregateFunction;
  /** Absent for count(*). */
  readonly column?: string;
  /** Output column name: `<function>_<column>`, or `count_rows` for count(*). */
  readonly as: string;
}

export interface OrderTerm {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
}

/** A validated typed query; every name in it exists in the dataset's schema. */
export interface QuerySpec {
  readonly select: readonly string[];
  readonly where: readonly Condition[];
  readonly groupBy: readonly string[];
  readonly aggregates: readonly AggregateTerm[];
  readonly orderBy: readonly OrderTerm[];
  readonly limit: number;
  readonly offset: number;
}

/** The typed fields of a query request, before validation against a schema. */
export const TYPED_QUERY_FIELDS = [
  'select',
  'where',
  'order_by',
  'group_by',
  'aggregates',
  'limit',
  'offset',
];

export function aggregateName(fn: AggregateFunction, column: string | undefined): string {
  return column === undefined ? `${fn}_rows` : `${fn}_${column}`;
}

export function aggregateType(fn: AggregateFunction, columnType: ColumnType | undefined): ColumnType {
  switch (fn) {
    case 'count':
      return 'integer';
    case 'avg':
      return 'number';
    case 'sum':
      return columnType === 'integer' ? 'integer' : 'number';
    case 'min':
    case 'max':
      return columnType ?? 'string';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Validates the typed grammar of docs/query.md against a dataset's columns. Collects every problem it finds and
 * throws one 422 validation_failed listing them, so a caller can fix a request in one round.
 */
export class QueryValidator {
  private readonly problems: ErrorDetail[] = [];
  private readonly columns = new Map<string, QueryableColumn>();

  constructor(columns: readonly QueryableColumn[]) {
    for (const column of columns) this.columns.set(column.name, column);
  }

  validate(input: Record<string, unknown>): QuerySpec {
    const groupBy = this.columnList(input.group_by, 'group_by');
    const aggregates = this.aggregates(input.aggregates);
    const grouped = groupBy.length > 0 || aggregates.length > 0;
    let select = this.columnList(input.select, 'select');
    if (grouped) {
      for (const [index, name] of select.entries()) {
        if (!groupBy.includes(name)) {
          this.problem(`select[${index}]`, `"${name}" must be one of group_by when grouping or aggregating`);
        }
      }
      if (input.select === undefined) select = groupBy;
    } else if (input.select === undefined) {
      select = [...this.columns.keys()];
    } else if (select.length === 0 && this.problems.length === 0) {
      this.problem('select', 'must name at least one column');
    }
    const outputs = new Map<string, true>();
    for (const name of grouped ? [...groupBy, ...aggregates.map((a) => a.as)] : select)
      outputs.set(name, true);
    for (const [index, aggregate] of aggregates.entries()) {
      if (groupBy.includes(aggregate.as) || aggregates.findIndex((a) => a.as === aggregate.as) !== index) {
        this.problem(`aggregates[${index}]`, `duplicates the output column "${aggregate.as}"`);
      }
    }
    const where = this.conditions(input.where);
    const orderBy = this.orderBy(input.order_by, grouped, outputs);
    const limit = this.integer(input.limit, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
    const offset = this.integer(input.offset, 'offset', 0, 0, MAX_OFFSET);
    if (this.problems.length > 0) throw AppError.validation(this.problems);
    return { select, where, groupBy, aggregates, orderBy, limit, offset };
  }

  private problem(field: string, problem: string): void {
    this.problems.push({ field, problem });
  }

  private column(value: unknown, field: string): QueryableColumn | undefined {
    if (typeof value !== 'string' || value === '') {
      this.problem(field, `must be a column name (a string), got ${describe(value)}`);
      return undefined;
    }
    const column = this.columns.get(value);
    if (!column) this.problem(field, `unknown column "${value.slice(0, 200)}"`);
    return column;
  }

  private list(value: unknown, field: string): readonly unknown[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.problem(field, `must be an array, got ${describe(value)}`);
      return [];
    }
    if (value.length > MAX_TERMS) {
      this.problem(field, `must have at most ${MAX_TERMS} entries`);
      return [];
    }
    return value;
  }

  private columnList(value: unknown, field: string): string[] {
    const names: string[] = [];
    for (const [index, item] of this.list(value, field).entries()) {
      const column = this.column(item, `${field}[${index}]`);
      if (!column) continue;
      if (names.includes(column.name)) this.problem(`${field}[${index}]`, `"${column.name}" is listed twice`);
      else names.push(column.name);
    }
    return names;
  }

  private aggregates(value: unknown): AggregateTerm[] {
    const terms: AggregateTerm[] = [];
    for (const [index, item] of this.list(value, 'aggregates').entries()) {
      const field = `aggregates[${index}]`;
      if (!isRecord(item)) {
        this.problem(field, 'must be an object {function, column}');
        continue;
      }
      this.unknownKeys(item, ['function', 'column'], field);
      const fn = item.function;
      if (typeof fn !== 'string' || !(AGGREGATE_FUNCTIONS as readonly string[]).includes(fn)) {
        this.problem(`${field}.function`, `must be one of ${AGGREGATE_FUNCTIONS.join(', ')}`);
        continue;
      }
      const aggregate = fn as AggregateFunction;
      if (item.column === undefined || item.column === null) {
        if (aggregate === 'count') terms.push({ function: 'count', as: aggregateName('count', undefined) });
        else this.problem(`${field}.column`, `is required for ${aggregate}`);
        continue;
      }
      const column = this.column(item.column, `${field}.column`);
      if (!column) continue;
      if ((aggregate === 'sum' || aggregate === 'avg') && !isNumericType(column.type)) {
        this.problem(
          `${field}.column`,
          `${aggregate} needs a numeric column; "${column.name}" is ${column.type}`,
        );
        continue;
      }
      terms.push({ function: aggregate, column: column.name, as: aggregateName(aggregate, column.name) });
    }
    return terms;
  }

  private conditions(value: unknown): Condition[] {
    const conditions: Condition[] = [];
    for (const [index, item] of this.list(value, 'where').entries()) {
      const field = `where[${index}]`;
      if (!isRecord(item)) {
        this.problem(field, 'must be an object {column, op, value}');
        continue;
      }
      this.unknownKeys(item, ['column', 'op', 'operator', 'value'], field);
      const column = this.column(item.column, `${field}.column`);
      const op = item.op ?? item.operator;
      if (typeof op !== 'string' || !(WHERE_OPERATORS as readonly string[]).includes(op)) {
        this.problem(`${field}.op`, `must be one of ${WHERE_OPERATORS.join(', ')}`);
        continue;
      }
      if (!column) continue;
      const condition = this.condition(column, op as WhereOperator, item.value, field);
      if (condition) conditions.push(condition);
    }
    return conditions;
  }

  private condition(
    column: QueryableColumn,
    op: WhereOperator,
    value: unknown,
    field: string,
  ): Condition | undefined {
    switch (op) {
      case 'is_null':
      case 'not_null':
        if (value !== undefined && value !== null) this.problem(`${field}.value`, `must be absent for ${op}`);
        return { column: column.name, op };
      case 'in': {
        if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) {
          this.problem(`${field}.value`, `must be an array of 1 to ${MAX_IN_VALUES} values for in`);
          return undefined;
        }
        const values = value.map((v, i) => this.scalar(column, op, v, `${field}.value[${i}]`));
        return values.every((v) => v !== undefined) ? { column: column.name, op, value: values } : undefined;
      }
      case 'contains':
      case 'starts_with':
        if (!(column.type === 'string' || isTemporalType(column.type))) {
          this.problem(
            `${field}.op`,
            `${op} applies to text and date columns; "${column.name}" is ${column.type}`,
          );
          return undefined;
        }
        if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT_VALUE) {
          this.problem(`${field}.value`, `must be a non-empty string for ${op}`);
          return undefined;
        }
        return { column: column.name, op, value };
      case 'eq':
      case 'ne':
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte': {
        const scalar = this.scalar(column, op, value, `${field}.value`);
        return scalar === undefined ? undefined : { column: column.name, op, value: scalar };
      }
    }
  }

  /** A comparison value must have the column's type: numbers for numeric columns, ISO text for dates. */
  private scalar(
    column: QueryableColumn,
    op: WhereOperator,
    value: unknown,
    field: string,
  ): ScalarValue | undefined {
    if (value === null || value === undefined) {
      this.problem(field, `is required for ${op} (use is_null or not_null to test for missing values)`);
      return undefined;
    }
    switch (column.type) {
      case 'integer':
      case 'number':
        if (typeof value === 'number' && Number.isFinite(value)) return value;
        this.problem(
          field,
          `must be a number for the ${column.type} column "${column.name}", got ${describe(value)}`,
        );
        return undefined;
      case 'boolean':
        if (op !== 'eq' && op !== 'ne' && op !== 'in') {
          this.problem(field, `${op} does not apply to the boolean column "${column.name}"`);
          return undefined;
        }
        if (typeof value === 'boolean') return value;
        this.problem(
          field,
          `must be true or false for the boolean column "${column.name}", got ${describe(value)}`,
        );
        return undefined;
      case 'date':
      case 'timestamp':
        if (
          typeof value === 'string' &&
          (isDateText(value) || (column.type === 'timestamp' && isTimestampText(value)))
        ) {
          return value;
        }
        this.problem(
          field,
          column.type === 'date'
            ? `must be a date YYYY-MM-DD for the date column "${column.name}"`
            : `must be a date YYYY-MM-DD or an RFC 3339 timestamp for the timestamp column "${column.name}"`,
        );
        return undefined;
      case 'string':
        if (typeof value === 'string' && value.length <= MAX_TEXT_VALUE) return value;
        this.problem(field, `must be a string for the text column "${column.name}", got ${describe(value)}`);
        return undefined;
    }
  }

  private orderBy(value: unknown, grouped: boolean, outputs: Map<string, true>): OrderTerm[] {
    const terms: OrderTerm[] = [];
    for (const [index, item] of this.list(value, 'order_by').entries()) {
      const field = `order_by[${index}]`;
      const term = typeof item === 'string' ? { column: item } : item;
      if (!isRecord(term)) {
        this.problem(field, 'must be an object {column, direction}');
        continue;
      }
      this.unknownKeys(term, ['column', 'direction'], field);
      const direction = term.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') {
        this.problem(`${field}.direction`, 'must be asc or desc');
        continue;
      }
      if (typeof term.column !== 'string' || term.column === '') {
        this.problem(`${field}.column`, `must be a column name (a string), got ${describe(term.column)}`);
        continue;
      }
      if (grouped ? !outputs.has(term.column) : !this.columns.has(term.column)) {
        this.problem(
          `${field}.column`,
          grouped
            ? `"${term.column.slice(0, 200)}" is not a group_by column or aggregate output`
            : `unknown column "${term.column.slice(0, 200)}"`,
        );
        continue;
      }
      if (terms.some((t) => t.column === term.column)) {
        this.problem(`${field}.column`, `"${term.column}" is listed twice`);
        continue;
      }
      terms.push({ column: term.column, direction });
    }
    return terms;
  }

  private integer(value: unknown, field: string, fallback: number, min: number, max: number): number {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.problem(field, `must be an integer, got ${describe(value)}`);
      return fallback;
    }
    if (value < min || value > max) {
      this.problem(field, `must be between ${min} and ${max}`);
      return fallback;
    }
    return value;
  }

  private unknownKeys(item: Record<string, unknown>, allowed: readonly string[], field: string): void {
    for (const key of Object.keys(item)) {
      if (!allowed.includes(key)) this.problem(`${field}.${key.slice(0, 100)}`, 'is not a known field');
    }
  }
}
