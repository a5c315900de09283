import { ClassConstructor, Transform } from 'class-transformer';
import { Allow, ValidateNested, validateSync } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  DependsOnOtherFields,
  EachItem,
  IfPresent,
  isPlainObject,
  Problem,
  toDto,
  validationFailure,
  WIRE_VALIDATOR_OPTIONS,
} from '../../common/validation';
import {
  COLUMN_TYPES,
  ColumnType,
  isDateText,
  isNumericType,
  isTemporalType,
  isTimestampText,
  utcTimestamp,
} from '../datasets/datasets.types';
import { ErrorDetailDto } from '../../common/openapi';
import {
  AGGREGATE_FUNCTIONS,
  AggregateFunction,
  aggregateName,
  AggregateTerm,
  Condition,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_OFFSET,
  OrderTerm,
  QueryableColumn,
  QuerySpec,
  ScalarValue,
  WHERE_OPERATORS,
  WhereOperator,
} from './query-grammar';

/** `toQuerySpec` runs the pipe's rules again with the columns bound, so every problem is listed at once. */

const MAX_IN_VALUES = 1000;
const MAX_TEXT_VALUE = 10_000;
const MAX_TERMS = 100;
const MAX_BATCH = 50;
export const MAX_REPORT_DATASETS = 10;
const MAX_SQL_LENGTH = 100_000;
const DATASET_ID_PROBLEM = 'must be a dataset id (a string)';

const isDatasetId = (id: unknown): id is string =>
  typeof id === 'string' && id.length > 0 && id.length <= 128;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const COLUMNS = new WeakMap<object, ReadonlyMap<string, QueryableColumn>>();
const OWNER = new WeakMap<object, QueryRequest>();

function columnsOf(dto: object): ReadonlyMap<string, QueryableColumn> | undefined {
  const owner = OWNER.get(dto) ?? dto;
  return COLUMNS.get(owner);
}

function ownerOf(item: object): QueryRequest | undefined {
  return OWNER.get(item);
}

function columnProblem(value: unknown, dto: object): string | undefined {
  if (typeof value !== 'string' || value === '') {
    return `must be a column name (a string), got ${describe(value)}`;
  }
  const columns = columnsOf(dto);
  return columns && !columns.has(value) ? `unknown column "${value.slice(0, 200)}"` : undefined;
}

function listProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return `must be an array, got ${describe(value)}`;
  return value.length > MAX_TERMS ? `must have at most ${MAX_TERMS} entries` : undefined;
}

function columnListItem(
  name: unknown,
  index: number,
  items: readonly unknown[],
  dto: object,
): string | undefined {
  return (
    columnProblem(name, dto) ??
    (items.slice(0, index).includes(name) ? `"${String(name)}" is listed twice` : undefined)
  );
}

function usableNames(list: unknown, dto: object): string[] {
  if (listProblem(list) !== undefined) return [];
  const items = list as unknown[];
  return items.filter((name, i): name is string => columnListItem(name, i, items, dto) === undefined);
}

function NotWithNaturalLanguage(): PropertyDecorator {
  return Problem<QueryRequest>((_, dto) =>
    dto.query !== undefined ? 'cannot be combined with a natural-language query' : undefined,
  );
}

/** class-validator walks an array item as a list of its own, so `[[]]` would pass unless refused here. */
function NestedList<T extends object>(
  dto: ClassConstructor<T>,
  message: string,
  shorthand?: (item: unknown) => unknown,
): PropertyDecorator {
  return (target, property) => {
    ValidateNested({ message })(target, property);
    EachItem((item) => (item instanceof dto ? undefined : message))(target, property);
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
      const raw = obj[key];
      if (!Array.isArray(raw)) return raw;
      return raw.map((item: unknown) => {
        const plain = shorthand ? shorthand(item) : item;
        return isPlainObject(plain) ? toDto(dto, { ...plain }) : plain;
      });
    })(target, property);
  };
}

function scalarProblem(column: QueryableColumn, op: WhereOperator, value: unknown): string | undefined {
  if (value === null || value === undefined) {
    return `is required for ${op} (use is_null or not_null to test for missing values)`;
  }
  switch (column.type) {
    case 'integer':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `must be a number for the ${column.type} column "${column.name}", got ${describe(value)}`;
    case 'boolean':
      if (op !== 'eq' && op !== 'ne' && op !== 'in') {
        return `${op} does not apply to the boolean column "${column.name}"`;
      }
      return typeof value === 'boolean'
        ? undefined
        : `must be true or false for the boolean column "${column.name}", got ${describe(value)}`;
    case 'date':
    case 'timestamp':
      if (
        typeof value === 'string' &&
        (isDateText(value) || (column.type === 'timestamp' && isTimestampText(value)))
      ) {
        return undefined;
      }
      return column.type === 'date'
        ? `must be a date YYYY-MM-DD for the date column "${column.name}"`
        : `must be a date YYYY-MM-DD or an RFC 3339 timestamp for the timestamp column "${column.name}"`;
    case 'string':
      return typeof value === 'string' && value.length <= MAX_TEXT_VALUE
        ? undefined
        : `must be a string for the text column "${column.name}", got ${describe(value)}`;
  }
}

const isOperator = (op: unknown): op is WhereOperator =>
  typeof op === 'string' && (WHERE_OPERATORS as readonly string[]).includes(op);

function conditionColumn(condition: WhereDto): QueryableColumn | undefined {
  return typeof condition.column === 'string' ? columnsOf(condition)?.get(condition.column) : undefined;
}

export class WhereDto {
  @Problem<WhereDto>((column, condition) => columnProblem(column, condition))
  @ApiProperty({ example: 'region' })
  column!: string;

  @Problem<WhereDto>((_, condition) => {
    const op = condition.op ?? condition.operator;
    if (!isOperator(op)) return `must be one of ${WHERE_OPERATORS.join(', ')}`;
    const column = conditionColumn(condition);
    if ((op === 'contains' || op === 'starts_with') && column) {
      if (!(column.type === 'string' || isTemporalType(column.type))) {
        return `${op} applies to text and date columns; "${column.name}" is ${column.type}`;
      }
    }
    return undefined;
  })
  @ApiProperty({ enum: WHERE_OPERATORS })
  op!: WhereOperator;

  @IfPresent()
  @Allow()
  @ApiPropertyOptional({ enum: WHERE_OPERATORS, description: 'Another name for `op`.' })
  operator?: WhereOperator;

  @DependsOnOtherFields()
  @Problem<WhereDto>((value, condition) => {
    const op = condition.op ?? condition.operator;
    const column = conditionColumn(condition);
    if (!isOperator(op) || !column) return undefined;
    switch (op) {
      case 'is_null':
      case 'not_null':
        return value !== undefined && value !== null ? `must be absent for ${op}` : undefined;
      case 'in':
        return Array.isArray(value) && value.length > 0 && value.length <= MAX_IN_VALUES
          ? undefined
          : `must be an array of 1 to ${MAX_IN_VALUES} values for in`;
      case 'contains':
      case 'starts_with':
        if (!(column.type === 'string' || isTemporalType(column.type))) return undefined;
        return typeof value !== 'string' || value === '' || value.length > MAX_TEXT_VALUE
          ? `must be a non-empty string for ${op}`
          : undefined;
      case 'eq':
      case 'ne':
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte':
        return scalarProblem(column, op, value);
    }
  })
  @EachItem<WhereDto>((item, _index, _items, condition) => {
    const column = conditionColumn(condition);
    const op = condition.op ?? condition.operator;
    return op === 'in' && column ? scalarProblem(column, op, item) : undefined;
  })
  @ApiPropertyOptional({
    description:
      'A value of the column type; an array of them for `in`; absent for `is_null` and `not_null`.',
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
    example: 'West',
  })
  value?: ScalarValue | ScalarValue[];
}

const isAggregateFunction = (fn: unknown): fn is AggregateFunction =>
  typeof fn === 'string' && (AGGREGATE_FUNCTIONS as readonly string[]).includes(fn);

export class AggregateDto {
  @Problem((fn) => (isAggregateFunction(fn) ? undefined : `must be one of ${AGGREGATE_FUNCTIONS.join(', ')}`))
  @ApiProperty({ enum: AGGREGATE_FUNCTIONS })
  function!: AggregateFunction;

  @DependsOnOtherFields()
  @Problem<AggregateDto>((column, aggregate) => {
    const fn = aggregate.function;
    if (!isAggregateFunction(fn)) return undefined;
    if (column === undefined || column === null) return fn === 'count' ? undefined : `is required for ${fn}`;
    const problem = columnProblem(column, aggregate);
    if (problem !== undefined) return problem;
    const name = column as string;
    const type = columnsOf(aggregate)?.get(name)?.type;
    return (fn === 'sum' || fn === 'avg') && type !== undefined && !isNumericType(type)
      ? `${fn} needs a numeric column; "${name}" is ${type}`
      : undefined;
  })
  @ApiPropertyOptional({ description: 'The column; absent for count(*).', example: 'revenue' })
  column?: string;
}

function aggregateOutput(item: unknown, owner: object): string | undefined {
  if (!(item instanceof AggregateDto) || !isAggregateFunction(item.function)) return undefined;
  const column = item.column ?? undefined;
  if (column === undefined) return item.function === 'count' ? aggregateName('count', undefined) : undefined;
  return columnProblem(column, owner) === undefined ? aggregateName(item.function, column) : undefined;
}

export class OrderTermDto {
  @Problem<OrderTermDto>((_, term) => {
    const direction = term.direction ?? 'asc';
    return direction !== 'asc' && direction !== 'desc' ? undefined : orderColumnProblem(term);
  })
  @ApiProperty({ example: 'revenue' })
  column!: string;

  @IfPresent()
  @Problem((direction) => (direction === 'asc' || direction === 'desc' ? undefined : 'must be asc or desc'))
  @ApiPropertyOptional({ enum: ['asc', 'desc'], description: 'Default asc.' })
  direction?: 'asc' | 'desc';
}

function orderColumnProblem(term: OrderTermDto): string | undefined {
  const name: unknown = term.column;
  if (typeof name !== 'string' || name === '')
    return `must be a column name (a string), got ${describe(name)}`;
  const owner = ownerOf(term);
  if (!owner) return undefined;
  const columns = columnsOf(owner);
  if (isGrouped(owner)) {
    const outputs = [...usableNames(owner.group_by ?? [], owner), ...usableAggregates(owner)];
    if (columns && !outputs.includes(name)) {
      return `"${name.slice(0, 200)}" is not a group_by column or aggregate output`;
    }
  } else if (columns && !columns.has(name)) {
    return `unknown column "${name.slice(0, 200)}"`;
  }
  const terms = owner.order_by ?? [];
  const earlier = terms.slice(0, terms.indexOf(term));
  return earlier.some((t) => t instanceof OrderTermDto && t.column === name)
    ? `"${name}" is listed twice`
    : undefined;
}

function usableAggregates(dto: QueryRequest): string[] {
  const list: unknown = dto.aggregates;
  if (listProblem(list) !== undefined) return [];
  return (list as unknown[]).flatMap((item) => {
    const output = aggregateOutput(item, dto);
    return output === undefined ? [] : [output];
  });
}

function isGrouped(dto: QueryRequest): boolean {
  return usableNames(dto.group_by ?? [], dto).length > 0 || usableAggregates(dto).length > 0;
}

function isIntegerIn(min: number, max: number): (value: unknown) => string | undefined {
  return (value) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value))
      return `must be an integer, got ${describe(value)}`;
    return value < min || value > max ? `must be between ${min} and ${max}` : undefined;
  };
}

export class QueryRequest {
  @Problem((id) => (isDatasetId(id) ? undefined : DATASET_ID_PROBLEM))
  @ApiProperty({ description: 'Dataset id, as returned by GET /v1/data.', example: 'ds_3kq9v1m2x7' })
  dataset_id!: string;

  @IfPresent()
  @Problem((query) => (typeof query === 'string' ? undefined : 'must be a string'))
  @ApiPropertyOptional({
    description: 'Natural-language intent; instead of the typed fields.',
    example: 'top 5 region by total revenue',
  })
  query?: string;

  @IfPresent()
  @NotWithNaturalLanguage()
  @Problem(listProblem)
  @Problem<QueryRequest>((select, dto) =>
    Array.isArray(select) && select.length === 0 && !isGrouped(dto)
      ? 'must name at least one column'
      : undefined,
  )
  @EachItem<QueryRequest>((name, index, items, dto) => {
    const problem = columnListItem(name, index, items, dto);
    if (problem !== undefined || !isGrouped(dto)) return problem;
    return usableNames(dto.group_by ?? [], dto).includes(name as string)
      ? undefined
      : `"${String(name)}" must be one of group_by when grouping or aggregating`;
  })
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TERMS,
    description: 'Columns to return (default: every column, or the group_by columns when grouping).',
    example: ['region', 'revenue'],
  })
  select?: string[];

  @IfPresent()
  @NotWithNaturalLanguage()
  @Problem(listProblem)
  @NestedList(WhereDto, 'must be an object {column, op, value}')
  @ApiPropertyOptional({
    type: [WhereDto],
    maxItems: MAX_TERMS,
    description: 'Conditions, all of which hold.',
  })
  where?: WhereDto[];

  @IfPresent()
  @NotWithNaturalLanguage()
  @Problem(listProblem)
  @EachItem<QueryRequest>(columnListItem)
  @ApiPropertyOptional({ type: [String], maxItems: MAX_TERMS, example: ['region'] })
  group_by?: string[];

  @IfPresent()
  @NotWithNaturalLanguage()
  @Problem(listProblem)
  @EachItem<QueryRequest>((item, index, items, dto) => {
    const output = aggregateOutput(item, dto);
    if (output === undefined) return undefined;
    const earlier = items.slice(0, index).map((other) => aggregateOutput(other, dto));
    return usableNames(dto.group_by ?? [], dto).includes(output) || earlier.includes(output)
      ? `duplicates the output column "${output}"`
      : undefined;
  })
  @NestedList(AggregateDto, 'must be an object {function, column}')
  @ApiPropertyOptional({
    type: [AggregateDto],
    maxItems: MAX_TERMS,
    description: 'Output columns named `<function>_<column>` (`count_rows` for a count without a column).',
  })
  aggregates?: AggregateDto[];

  @IfPresent()
  @NotWithNaturalLanguage()
  @Problem(listProblem)
  @NestedList(OrderTermDto, 'must be an object {column, direction}', (item) =>
    typeof item === 'string' ? { column: item } : item,
  )
  @ApiPropertyOptional({
    description: 'Sort terms; a bare column name sorts ascending. Ties end in dataset order.',
    type: 'array',
    maxItems: MAX_TERMS,
    items: { oneOf: [{ type: 'string' }, { $ref: getSchemaPath(OrderTermDto) }] },
  })
  order_by?: (OrderTermDto | string)[];

  @IfPresent()
  @Problem(isIntegerIn(1, MAX_LIMIT))
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    description: `Default ${DEFAULT_LIMIT}.`,
  })
  limit?: number;

  @IfPresent()
  @Problem(isIntegerIn(0, MAX_OFFSET))
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, description: 'Default 0.' })
  offset?: number;
}

export function toQuerySpec(request: object, columns: readonly QueryableColumn[]): QuerySpec {
  const dto = toDto(QueryRequest, { dataset_id: 'resolved', ...request });
  COLUMNS.set(dto, new Map(columns.map((column) => [column.name, column])));
  for (const list of [dto.where, dto.aggregates, dto.order_by]) {
    if (Array.isArray(list))
      for (const item of list) if (typeof item === 'object' && item !== null) OWNER.set(item, dto);
  }
  const errors = validateSync(dto, WIRE_VALIDATOR_OPTIONS);
  if (errors.length > 0) throw validationFailure(errors);
  return specOf(dto, columns);
}

function specOf(dto: QueryRequest, columns: readonly QueryableColumn[]): QuerySpec {
  const groupBy = dto.group_by ?? [];
  const aggregates: AggregateTerm[] = (dto.aggregates ?? []).map((a) => {
    const column = a.column ?? undefined;
    return {
      function: a.function,
      ...(column === undefined ? {} : { column }),
      as: aggregateName(a.function, column),
    };
  });
  const grouped = groupBy.length > 0 || aggregates.length > 0;
  const select = dto.select ?? (grouped ? groupBy : columns.map((c) => c.name));
  const types = new Map(columns.map((c) => [c.name, c.type]));
  const where: Condition[] = (dto.where ?? []).map((w) => {
    const op = w.op ?? (w.operator as WhereOperator);
    if (op === 'is_null' || op === 'not_null') return { column: w.column, op };
    const value = w.value as ScalarValue | ScalarValue[];
    const comparable =
      types.get(w.column) === 'timestamp' && op !== 'contains' && op !== 'starts_with'
        ? storedTimestamps(value)
        : value;
    return { column: w.column, op, value: comparable };
  });
  const orderBy: OrderTerm[] = (dto.order_by ?? []).map((t) => {
    const term = t as OrderTermDto;
    return { column: term.column, direction: term.direction ?? 'asc' };
  });
  return {
    select,
    where,
    groupBy,
    aggregates,
    orderBy,
    limit: dto.limit ?? DEFAULT_LIMIT,
    offset: dto.offset ?? 0,
  };
}

/** Timestamps are stored as `YYYY-MM-DDTHH:MM:SS.fffZ` text and compared as text: values are brought to it. */
function storedTimestamps(value: ScalarValue | ScalarValue[]): ScalarValue | ScalarValue[] {
  const stored = (item: ScalarValue): ScalarValue =>
    typeof item === 'string' && !isDateText(item) ? (utcTimestamp(item) ?? item) : item;
  return Array.isArray(value) ? value.map(stored) : stored(value);
}

export class QueryBatchRequest {
  @Problem((queries) =>
    Array.isArray(queries) && queries.length > 0 && queries.length <= MAX_BATCH
      ? undefined
      : `must be an array of 1 to ${MAX_BATCH} queries`,
  )
  @ApiProperty({ type: [QueryRequest], minItems: 1, maxItems: MAX_BATCH })
  queries!: unknown[];
}

export class SqlReportRequest {
  @DependsOnOtherFields()
  @Problem<SqlReportRequest>((id, report) => {
    if (id !== undefined) return isDatasetId(id) ? undefined : DATASET_ID_PROBLEM;
    const others = report.dataset_ids;
    return Array.isArray(others) && others.length > 0 ? undefined : 'is required';
  })
  @ApiPropertyOptional({
    description: 'The dataset visible as its dataset_name and as `dataset`; this or dataset_ids is required.',
    example: 'ds_3kq9v1m2x7',
  })
  dataset_id?: string;

  @IfPresent()
  @Problem((ids) =>
    Array.isArray(ids) && ids.length <= MAX_REPORT_DATASETS
      ? undefined
      : `must be an array of at most ${MAX_REPORT_DATASETS} dataset ids`,
  )
  @EachItem((id) => (isDatasetId(id) ? undefined : DATASET_ID_PROBLEM))
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_REPORT_DATASETS,
    description: 'More datasets, each visible as a table named after its dataset_name.',
  })
  dataset_ids?: string[];

  @Problem((sql) =>
    typeof sql === 'string' && sql.trim() !== '' && sql.length <= MAX_SQL_LENGTH
      ? undefined
      : 'must be one SQL statement (a non-empty string)',
  )
  @ApiProperty({
    maxLength: MAX_SQL_LENGTH,
    example: 'select region, count(*) as n from sales group by region',
  })
  sql!: string;
}

const CELL = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] };

export class ResultColumnResponse {
  @ApiProperty({ example: 'region' })
  name!: string;
  @ApiProperty({ enum: COLUMN_TYPES, example: 'string' })
  type!: ColumnType;
}

export class PlanConditionResponse {
  @ApiProperty({ example: 'region' })
  column!: string;
  @ApiProperty({ enum: WHERE_OPERATORS })
  op!: WhereOperator;
  @ApiPropertyOptional({
    oneOf: [...CELL.oneOf.slice(0, 3), { type: 'array', items: CELL }],
    example: 'West',
  })
  value?: ScalarValue | readonly ScalarValue[];
}

export class PlanAggregateResponse {
  @ApiProperty({ enum: AGGREGATE_FUNCTIONS })
  function!: AggregateFunction;
  @ApiProperty({ type: 'string', nullable: true, description: 'null for count(*).' })
  column!: string | null;
  @ApiProperty({ example: 'sum_revenue' })
  as!: string;
}

export class PlanOrderTermResponse {
  @ApiProperty({ example: 'revenue' })
  column!: string;
  @ApiProperty({ enum: ['asc', 'desc'] })
  direction!: 'asc' | 'desc';
}

export class ColumnMatchResponse {
  @ApiProperty({ example: 'revenu' })
  token!: string;
  @ApiProperty({ example: 'revenue' })
  column!: string;
  @ApiProperty({ example: 'fuzzy' })
  method!: string;
  @ApiPropertyOptional({ example: 1 })
  distance?: number;
}

export class DateInterpretationResponse {
  @ApiProperty({ example: 'last 7 days' })
  phrase!: string;
  @ApiProperty({ example: 'order_date' })
  column!: string;
  @ApiPropertyOptional({ format: 'date' })
  from?: string;
  @ApiPropertyOptional({ format: 'date' })
  to?: string;
}

export class InterpretationResponse {
  @ApiProperty({ example: 'top_n' })
  pattern!: string;
  @ApiProperty({ example: 'top 5 region by total revenue' })
  text!: string;
  @ApiProperty({ type: [ColumnMatchResponse] })
  matches!: readonly ColumnMatchResponse[];
  @ApiProperty({ type: [String], description: 'The defaults applied, in words.' })
  defaults!: readonly string[];
  @ApiProperty({ type: [DateInterpretationResponse] })
  dates!: readonly DateInterpretationResponse[];
  @ApiProperty({
    format: 'date-time',
    description: 'Date words are relative to the dataset snapshot, not the clock.',
  })
  snapshot_time!: string;
}

export class QueryPlanResponse {
  @ApiProperty({ example: 'ds_3kq9v1m2x7' })
  dataset_id!: string;
  @ApiProperty({ example: 'sales' })
  dataset_name!: string;
  @ApiProperty({ example: 1 })
  version!: number;
  @ApiProperty({ enum: ['rows', 'aggregate'] })
  kind!: 'rows' | 'aggregate';
  @ApiProperty({ type: [String] })
  select!: readonly string[];
  @ApiProperty({ type: [PlanConditionResponse] })
  where!: readonly PlanConditionResponse[];
  @ApiProperty({ type: [String] })
  group_by!: readonly string[];
  @ApiProperty({ type: [PlanAggregateResponse] })
  aggregates!: readonly PlanAggregateResponse[];
  @ApiProperty({
    type: [PlanOrderTermResponse],
    description: 'The order asked for, then the tiebreaks that make it total.',
  })
  order_by!: readonly PlanOrderTermResponse[];
  @ApiProperty({ example: 100 })
  limit!: number;
  @ApiProperty({ example: 0 })
  offset!: number;
  @ApiProperty({ description: 'The statement run, values bound as parameters.' })
  sql!: string;
  @ApiProperty({ enum: ['dataset', 'summary'] })
  answered_from!: 'dataset' | 'summary';
  @ApiPropertyOptional({ type: InterpretationResponse, description: 'Natural-language queries only.' })
  interpretation?: InterpretationResponse;
}

export class QueryResponse {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: CELL },
    description: 'One object per row, keyed by the output column names.',
    example: [{ region: 'West', sum_revenue: 1520.5 }],
  })
  rows!: Record<string, ScalarValue | null>[];
  @ApiProperty({ type: [ResultColumnResponse] })
  columns!: ResultColumnResponse[];
  @ApiProperty({ type: QueryPlanResponse })
  plan!: QueryPlanResponse;
  @ApiProperty({ example: 1 })
  row_count!: number;
  @ApiProperty({ description: 'More rows matched than limit.' })
  truncated!: boolean;
}

export class BatchErrorObject {
  @ApiProperty({ example: 'dataset_not_found' })
  code!: string;
  @ApiProperty()
  message!: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto] })
  details?: readonly ErrorDetailDto[];
}

export class QueryBatchError {
  @ApiProperty({ type: BatchErrorObject })
  error!: BatchErrorObject;
}

export class QueryBatchResponse {
  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(QueryResponse) }, { $ref: getSchemaPath(QueryBatchError) }] },
    description: 'One result or error per query, in order.',
  })
  results!: (QueryResponse | QueryBatchError)[];
}

export class ReportTableResponse {
  @ApiProperty({ example: 'ds_3kq9v1m2x7' })
  dataset_id!: string;
  @ApiProperty({ type: [String], example: ['sales', 'dataset'] })
  names!: readonly string[];
}

export class SqlReportResponse {
  @ApiProperty({ type: [String], example: ['region', 'n'] })
  columns!: readonly string[];
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: CELL },
    example: [{ region: 'East', n: 250 }],
  })
  rows!: readonly Record<string, unknown>[];
  @ApiProperty({ example: 1 })
  row_count!: number;
  @ApiProperty()
  truncated!: boolean;
  @ApiProperty({
    type: [ReportTableResponse],
    description: 'Each dataset and the table names it was visible as.',
  })
  tables!: readonly ReportTableResponse[];
  @ApiProperty({ example: 12.34 })
  elapsed_ms!: number;
}
