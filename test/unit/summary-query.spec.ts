import { ReadySummaries } from '../../src/modules/datasets/dataset-summaries';
import { quoteIdentifier } from '../../src/modules/datasets/sql-identifiers';
import { compileQuery } from '../../src/modules/query/query-compiler';
import { QuerySpec } from '../../src/modules/query/query-grammar';
import { compileSummaryQuery } from '../../src/modules/query/summary-query';

const summaries: ReadySummaries = {
  tables: new Map([['region', 'summary_0']]),
  measures: new Set(['revenue']),
  reader: () => Promise.reject(new Error('not used')),
};
const stored = (name: string): boolean => name !== 'margin';
const columnSql = (name: string): string => (name === 'margin' ? '("revenue" * 2)' : quoteIdentifier(name));

function spec(overrides: Partial<QuerySpec>): QuerySpec {
  return {
    select: [],
    where: [],
    groupBy: ['region'],
    aggregates: [{ function: 'sum', column: 'revenue', as: 'sum_revenue' }],
    orderBy: [{ column: 'sum_revenue', direction: 'desc' }],
    limit: 10,
    offset: 0,
    ...overrides,
  };
}

function compile(s: QuerySpec): ReturnType<typeof compileSummaryQuery> {
  return compileSummaryQuery(s, compileQuery(s, columnSql), summaries, stored);
}

describe('compileSummaryQuery', () => {
  it('keeps the direct output names and the full order, tiebreak included', () => {
    const s = spec({
      aggregates: [
        { function: 'sum', column: 'revenue', as: 'sum_revenue' },
        { function: 'count', as: 'count_rows' },
      ],
    });
    expect(compile(s)).toEqual({
      sql:
        'select "key" as "region", "sum:revenue" as "sum_revenue", "rows" as "count_rows" from "summary_0" ' +
        'order by "sum_revenue" desc, "region" asc limit ? offset ?',
      params: [11, 0],
    });
  });

  it('declines filters, other or several keys, formulas, unsummarised columns and no key', () => {
    expect(compile(spec({ where: [{ column: 'region', op: 'eq', value: 'West' }] }))).toBeNull();
    expect(compile(spec({ groupBy: ['product'] }))).toBeNull();
    expect(compile(spec({ groupBy: ['region', 'product'] }))).toBeNull();
    expect(
      compile(spec({ aggregates: [{ function: 'sum', column: 'margin', as: 'sum_margin' }], orderBy: [] })),
    ).toBeNull();
    expect(
      compile(spec({ aggregates: [{ function: 'max', column: 'units', as: 'max_units' }], orderBy: [] })),
    ).toBeNull();
    expect(compile(spec({ groupBy: [], orderBy: [] }))).toBeNull();
  });
});
