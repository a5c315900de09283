import { AppError } from '../../src/common/errors';
import { quoteIdentifier } from '../../src/modules/datasets/sql-identifiers';
import { compileQuery } from '../../src/modules/query/query-compiler';
import { QueryableColumn } from '../../src/modules/query/query-grammar';
import { QueryRequest, SqlReportRequest, toQuerySpec } from '../../src/modules/query/query.dto';
import { parseWire } from '../../src/common/validation';

const columns: QueryableColumn[] = [
  { name: 'id', type: 'integer' },
  { name: 'day', type: 'date' },
  { name: 'at', type: 'timestamp' },
  { name: 'region', type: 'string' },
  { name: 'revenue', type: 'number' },
  { name: 'flag', type: 'boolean' },
];
const validate = (input: Record<string, unknown>) => toQuerySpec(input, columns);

function problems(
  input: Record<string, unknown>,
  check: (input: Record<string, unknown>) => unknown = validate,
): { field: string; problem: string }[] {
  try {
    check(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    return [...((error as AppError).details ?? [])];
  }
  throw new Error('expected a validation failure');
}

describe('typed query grammar', () => {
  it('defaults to every column, limit 100, offset 0', () => {
    expect(validate({})).toEqual({
      select: ['id', 'day', 'at', 'region', 'revenue', 'flag'],
      where: [],
      groupBy: [],
      aggregates: [],
      orderBy: [],
      limit: 100,
      offset: 0,
    });
  });

  it('names aggregates <function>_<column> and count_rows', () => {
    const spec = validate({
      group_by: ['region'],
      aggregates: [
        { function: 'sum', column: 'revenue' },
        { function: 'count' },
        { function: 'max', column: 'day' },
      ],
    });
    expect(spec.aggregates.map((a) => a.as)).toEqual(['sum_revenue', 'count_rows', 'max_day']);
    expect(spec.select).toEqual(['region']);
  });

  it('accepts every operator with a value of the column type', () => {
    const spec = validate({
      where: [
        { column: 'revenue', op: 'gte', value: 10 },
        { column: 'region', op: 'in', value: ['West', 'East'] },
        { column: 'region', operator: 'contains', value: 'es' },
        { column: 'day', op: 'lt', value: '2024-01-01' },
        { column: 'at', op: 'gte', value: '2024-01-01T10:00:00Z' },
        { column: 'flag', op: 'eq', value: true },
        { column: 'region', op: 'is_null' },
      ],
    });
    expect(spec.where).toHaveLength(7);
  });

  it('brings a timestamp value to the stored UTC form, its offset applied', () => {
    const spec = validate({
      where: [
        { column: 'at', op: 'gte', value: '2024-01-01T10:00:00+05:30' },
        { column: 'at', op: 'in', value: ['2024-01-01 10:00', '2024-01-01'] },
        { column: 'at', op: 'starts_with', value: '2024-01-01T10' },
      ],
    });
    expect(spec.where.map((c) => (c as { value?: unknown }).value)).toEqual([
      '2024-01-01T04:30:00.000Z',
      ['2024-01-01T10:00:00.000Z', '2024-01-01'],
      '2024-01-01T10',
    ]);
  });

  it.each([
    [{ select: ['nope'] }, 'select[0]', 'unknown column "nope"'],
    [{ select: ['region; drop table data'] }, 'select[0]', 'unknown column "region; drop table data"'],
    [{ limit: -1 }, 'limit', 'must be between 1 and 10000'],
    [{ limit: 10001 }, 'limit', 'must be between 1 and 10000'],
    [{ limit: 1.5 }, 'limit', 'must be an integer, got a number'],
    [{ offset: -5 }, 'offset', 'must be between 0 and 1000000000'],
    [{ where: [{ column: 'revenue', op: 'gt', value: '10' }] }, 'where[0].value', 'must be a number'],
    [{ where: [{ column: 'region', op: 'gt', value: 5 }] }, 'where[0].value', 'must be a string'],
    [{ where: [{ column: 'flag', op: 'lt', value: true }] }, 'where[0].value', 'lt does not apply'],
    [
      { where: [{ column: 'revenue', op: 'contains', value: 'x' }] },
      'where[0].op',
      'contains applies to text',
    ],
    [{ where: [{ column: 'region', op: 'like', value: 'x' }] }, 'where[0].op', 'must be one of'],
    [{ where: [{ column: 'day', op: 'eq', value: 'yesterday' }] }, 'where[0].value', 'must be a date'],
    [{ where: [{ column: 'region', op: 'eq', value: null }] }, 'where[0].value', 'use is_null'],
    [{ where: [{ column: 'region', op: 'in', value: [] }] }, 'where[0].value', 'array of 1 to 1000'],
    [
      { aggregates: [{ function: 'sum', column: 'region' }] },
      'aggregates[0].column',
      'needs a numeric column',
    ],
    [{ aggregates: [{ function: 'median', column: 'revenue' }] }, 'aggregates[0].function', 'must be one of'],
    [{ group_by: ['region'], select: ['revenue'] }, 'select[0]', 'must be one of group_by'],
    [{ order_by: [{ column: 'nope' }] }, 'order_by[0].column', 'unknown column'],
    [{ order_by: [{ column: 'region', direction: 'up' }] }, 'order_by[0].direction', 'must be asc or desc'],
    [
      { group_by: ['region'], aggregates: [{ function: 'count' }], order_by: [{ column: 'revenue' }] },
      'order_by[0].column',
      'not a group_by column or aggregate output',
    ],
    [
      { where: [{ column: 'region', op: 'eq', value: 'x', extra: 1 }] },
      'where[0].extra',
      'is not a known field',
    ],
  ])('%j → %s', (input, field, problem) => {
    const found = problems(input);
    expect(found.find((p) => p.field === field)?.problem).toContain(problem);
  });

  it.each([
    [
      { where: [{ column: 'region', op: 'in', value: ['West', 7, 'East', null] }] },
      ['where[0].value[1]', 'where[0].value[3]'],
    ],
    [{ where: [{ column: 'region', op: 'eq', value: 'x' }, 'region = x'] }, ['where[1]']],
    [
      { group_by: ['region'], aggregates: [{ function: 'count' }, { function: 'avg' }] },
      ['aggregates[1].column'],
    ],
    [{ group_by: ['region'], aggregates: [{ function: 'count' }, { function: 'count' }] }, ['aggregates[1]']],
    [{ order_by: ['region', { column: 'region' }] }, ['order_by[1].column']],
    [{ order_by: [7] }, ['order_by[0]']],
    [{ select: ['region', 'region', 'nope'] }, ['select[1]', 'select[2]']],
    [{ select: 'region' }, ['select']],
    [{ select: ['region'], colour: 'red' }, ['colour']],
  ])('names nested problems by their path: %j → %j', (input, fields) => {
    expect(problems(input).map((p) => p.field)).toEqual(fields);
  });

  it('checks the shape without the dataset, as the pipe does, with the same paths', () => {
    const shape = (input: Record<string, unknown>) =>
      parseWire(QueryRequest, { dataset_id: 'ds_1', ...input });
    expect(problems({ select: ['nope'], limit: 0 }, shape)).toEqual([
      { field: 'limit', problem: 'must be between 1 and 10000' },
    ]);
    expect(
      problems({ where: [{ column: 'x', op: 'like' }], aggregates: [{}] }, shape).map((p) => p.field),
    ).toEqual(['where[0].op', 'aggregates[0].function']);
    expect(problems({ query: 'top 5 region', select: ['region'] }, shape)).toEqual([
      { field: 'select', problem: 'cannot be combined with a natural-language query' },
    ]);
    expect(problems({ dataset_id: 7 }, shape)).toEqual([
      { field: 'dataset_id', problem: 'must be a dataset id (a string)' },
    ]);
    const report = (input: Record<string, unknown>) => parseWire(SqlReportRequest, input);
    expect(problems({ sql: 'select 1' }, report)).toEqual([{ field: 'dataset_id', problem: 'is required' }]);
    expect(problems({ dataset_ids: ['ds_1', 3], sql: ' ' }, report)).toEqual([
      { field: 'dataset_ids[1]', problem: 'must be a dataset id (a string)' },
      { field: 'sql', problem: 'must be one SQL statement (a non-empty string)' },
    ]);
  });

  it('answers null items in where, aggregates and order_by with a 422, not a raw TypeError', () => {
    for (const list of ['where', 'aggregates', 'order_by']) {
      expect(problems({ [list]: [null] }).map((p) => p.field)).toEqual([`${list}[0]`]);
    }
  });

  it.each([
    ['where', [[]]],
    ['where', [[{ column: 'region', op: 'eq', value: 'x' }]]],
    ['aggregates', [[]]],
    ['aggregates', [[{ function: 'count' }]]],
    ['order_by', [[]]],
    ['order_by', [['region']]],
  ])('refuses an array as an item of %s (%j) with a 422 at the item, typed or shape-only', (list, items) => {
    const shape = (input: Record<string, unknown>) =>
      parseWire(QueryRequest, { dataset_id: 'ds_1', ...input });
    for (const check of [validate, shape]) {
      expect(problems({ [list]: items }, check)).toEqual([
        { field: `${list}[0]`, problem: expect.stringMatching(/^must be an object \{/) as unknown },
      ]);
    }
  });

  it('reports every problem at once', () => {
    expect(problems({ select: ['a', 'b'], limit: 0 }).map((p) => p.field)).toEqual([
      'select[0]',
      'select[1]',
      'limit',
    ]);
  });
});

describe('query compiler', () => {
  const sql = (name: string) => quoteIdentifier(name);

  it('binds every value and ends the order with the row ordinal', () => {
    const compiled = compileQuery(
      validate({
        select: ['region', 'revenue'],
        where: [
          { column: 'region', op: 'eq', value: "West'; drop table data; --" },
          { column: 'flag', op: 'ne', value: true },
          { column: 'region', op: 'starts_with', value: 'W' },
        ],
        order_by: [{ column: 'revenue', direction: 'desc' }],
        limit: 5,
        offset: 10,
      }),
      sql,
    );
    expect(compiled.sql).toBe(
      'select "region" as "region", "revenue" as "revenue" from rows where "region" = ? and ("flag" <> ? or "flag" is null) ' +
        'and substr("region", 1, length(?)) = ? order by "revenue" desc nulls last, "_row" asc nulls first limit 6 offset 10',
    );
    expect(compiled.params).toEqual(["West'; drop table data; --", true, 'W', 'W']);
    expect(compiled.orderBy).toEqual([
      { column: 'revenue', direction: 'desc' },
      { column: '_row', direction: 'asc' },
    ]);
  });

  it('compares coded columns with the code of each value and answers them as the storage says', () => {
    const compiled = compileQuery(
      validate({
        group_by: ['region'],
        aggregates: [{ function: 'max', column: 'region' }, { function: 'count' }],
        where: [
          { column: 'region', op: 'in', value: ['West', 'East'] },
          { column: 'region', op: 'ne', value: 'North' },
          { column: 'revenue', op: 'eq', value: 5 },
        ],
      }),
      sql,
      {
        answerSql: (name, expression) => (name === 'region' ? `cast(${expression} as varchar)` : expression),
        memberSql: (name) => (name === 'region' ? 'try_cast(? as "codes")' : '?'),
      },
    );
    expect(compiled.sql).toBe(
      'select cast("region" as varchar) as "region", cast(max("region") as varchar) as "max_region", count(*) as "count_rows" from rows ' +
        'where "region" in (try_cast(? as "codes"), try_cast(? as "codes")) and ("region" <> ? or "region" is null) and "revenue" = ? ' +
        'group by "region" order by "region" asc nulls first limit 101 offset 0',
    );
    expect(compiled.params).toEqual(['West', 'East', 'North', 5]);
  });

  it('leaves rows ordered by the row ordinal alone in scan order, without a sort', () => {
    const compiled = compileQuery(validate({ select: ['region'], limit: 5, offset: 10 }), sql);
    expect(compiled.sql).toBe('select "region" as "region" from rows limit 6 offset 10');
    expect(compiled.orderBy).toEqual([{ column: '_row', direction: 'asc' }]);
  });

  it('orders grouped results by the requested terms then every group key', () => {
    const compiled = compileQuery(
      validate({
        group_by: ['region', 'day'],
        aggregates: [{ function: 'sum', column: 'revenue' }],
        order_by: [{ column: 'sum_revenue', direction: 'desc' }],
        limit: 10,
      }),
      sql,
    );
    expect(compiled.sql).toBe(
      'select "region" as "region", "day" as "day", sum("revenue") as "sum_revenue" from rows group by "region", "day" ' +
        'order by "sum_revenue" desc nulls last, "region" asc nulls first, "day" asc nulls first limit 11 offset 0',
    );
  });

  it('adds sums of doubles as fixed-point decimals, or in row order when they would not fit', () => {
    const spec = validate({
      aggregates: [
        { function: 'sum', column: 'revenue' },
        { function: 'avg', column: 'revenue' },
        { function: 'max', column: 'revenue' },
      ],
    });
    expect(compileQuery(spec, sql, { sumForm: () => ({ kind: 'fixed', scale: 24 }) }).sql).toBe(
      'select sum(cast("revenue" as decimal(38, 24))) as "sum_revenue", avg(cast("revenue" as decimal(38, 24))) ' +
        'as "avg_revenue", max("revenue") as "max_revenue" from rows limit 101 offset 0',
    );
    expect(compileQuery(spec, sql, { sumForm: () => ({ kind: 'ordered' }) }).sql).toBe(
      'select list_sum(list("revenue" order by "_row")) as "sum_revenue", list_avg(list("revenue" order by "_row")) ' +
        'as "avg_revenue", max("revenue") as "max_revenue" from rows limit 101 offset 0',
    );
  });
});
