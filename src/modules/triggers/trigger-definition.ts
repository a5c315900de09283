import { AppError, ErrorDetail } from '../../common/errors';
import { ConditionDto, ScheduleDto } from './triggers.dto';
import { Aggregate, Operator, SourceKind } from './triggers.types';

/** The condition as stored and answered: the wire shape, defaults filled in. */
export interface StoredCondition {
  readonly source: StoredSource;
  readonly operator: Operator;
  readonly threshold: number;
  readonly for_s: number;
}

export type StoredSource =
  | { readonly kind: Extract<SourceKind, 'push'> }
  | {
      readonly kind: Extract<SourceKind, 'query'>;
      readonly dataset_id: string;
      readonly query: Record<string, unknown>;
      readonly value: { readonly column: string; readonly aggregate: Aggregate };
    };

export function toStoredCondition(condition: ConditionDto): StoredCondition {
  const { source } = condition;
  return {
    source:
      source.kind === 'push'
        ? { kind: 'push' }
        : {
            kind: 'query',
            dataset_id: source.dataset_id ?? '',
            query: source.query ?? {},
            value: { column: source.value?.column ?? '', aggregate: source.value?.aggregate ?? 'first' },
          },
    operator: condition.operator,
    threshold: condition.threshold,
    for_s: condition.for_s ?? 0,
  };
}

export function parseCondition(json: string): StoredCondition {
  return JSON.parse(json) as StoredCondition;
}

export function queryBodyOf(source: Extract<StoredSource, { kind: 'query' }>): Record<string, unknown> {
  return { ...source.query, dataset_id: source.dataset_id };
}

export interface StoredSchedule {
  readonly interval_s: number;
  readonly catch_up_window_s: number;
}

export function toStoredSchedule(schedule: ScheduleDto | null | undefined): StoredSchedule | null {
  return schedule
    ? { interval_s: schedule.interval_s, catch_up_window_s: schedule.catch_up_window_s ?? 0 }
    : null;
}

/** A query's own 422 details, named where they sit in the trigger body. */
export function underQuery(error: AppError): AppError {
  if (error.code !== 'validation_failed' || !error.details) return error;
  const details: ErrorDetail[] = error.details.map((d) => ({
    field: d.field === 'dataset_id' ? 'condition.source.dataset_id' : `condition.source.query.${d.field}`,
    problem: d.problem,
  }));
  return AppError.validation(details);
}
