/** The typed query of docs/query.md once checked (query.dto.ts): the operators, the terms and the spec. */
import { ColumnType } from '../datasets/datasets.types';

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
