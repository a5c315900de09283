export const OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne'] as const;
export type Operator = (typeof OPERATORS)[number];

/** How a query result's rows become one value: a column of the first or last row, or an aggregate over all rows. */
export const AGGREGATES = ['first', 'last', 'sum', 'avg', 'min', 'max', 'count'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export const SOURCE_KINDS = ['query', 'push'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/**
 * inactive → pending (condition holds, `for_s` not yet over) → firing → recovering (condition false, inside the
 * keep-firing window) → inactive; `no_data` when the query returned nothing, `error` when it keeps failing,
 * `disabled` while the trigger is off.
 */
export const TRIGGER_STATES = [
  'inactive',
  'pending',
  'firing',
  'recovering',
  'no_data',
  'error',
  'disabled',
] as const;
export type TriggerState = (typeof TRIGGER_STATES)[number];

export const EXECUTION_STATUSES = [
  'dispatched',
  'not_requested',
  'skipped_uncalibrated',
  'skipped_policy',
  'skipped_no_url',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const MIN_INTERVAL_S = 10;
export const MAX_INTERVAL_S = 7 * 24 * 3600;
export const MAX_WINDOW_S = 7 * 24 * 3600;
/** A `decision.execute` older than this is never sent: a late execution is worse than none. */
export const DEFAULT_EXECUTION_MAX_AGE_S = 15 * 60;

export function compare(value: number, operator: Operator, threshold: number): boolean {
  switch (operator) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
    case 'eq':
      return value === threshold;
    case 'ne':
      return value !== threshold;
  }
}
