import {
  NlColumn,
  QueryNotUnderstoodError,
  resolveNaturalLanguage,
} from '../../src/modules/query/nl-resolver';

const columns: NlColumn[] = [
  { name: 'order_id', type: 'integer', role: 'id' },
  { name: 'order_date', type: 'date', role: 'time' },
  { name: 'region', type: 'string', role: 'dimension' },
  { name: 'product', type: 'string', role: 'dimension' },
  { name: 'units', type: 'integer', role: 'measure' },
  { name: 'revenue', type: 'number', role: 'measure' },
  { name: 'is_returned', type: 'boolean', role: 'dimension' },
  { name: 'customer.name', type: 'string', role: 'dimension' },
];
const snapshotTime = new Date('2024-03-15T10:30:00Z');
const resolve = (text: string) => resolveNaturalLanguage(text, { columns, snapshotTime });

function notUnderstood(text: string): QueryNotUnderstoodError {
  try {
    resolve(text);
  } catch (error) {
    if (error instanceof QueryNotUnderstoodError) return error;
    throw error;
  }
  throw new Error(`"${text}" was resolved but should not be`);
}

describe('natural-language resolver', () => {
  it('resolves top N <dim> by total <measure>', () => {
    const { query, interpretation } = resolve('top 10 region by total revenue');
    expect(query).toEqual({
      group_by: ['region'],
      aggregates: [{ function: 'sum', column: 'revenue' }],
      order_by: [{ column: 'sum_revenue', direction: 'desc' }],
      limit: 10,
    });
    expect(interpretation.pattern).toBe('top_n');
    expect(interpretation.matches).toEqual([
      { token: 'region', column: 'region', method: 'exact' },
      { token: 'revenue', column: 'revenue', method: 'exact' },
    ]);
    expect(interpretation.defaults).toEqual([]);
    expect(interpretation.snapshot_time).toBe('2024-03-15T10:30:00.000Z');
  });

  it('resolves bottom N with average, plurals and case', () => {
    const { query, interpretation } = resolve('Bottom 3 Products by average Units');
    expect(query).toEqual({
      group_by: ['product'],
      aggregates: [{ function: 'avg', column: 'units' }],
      order_by: [{ column: 'avg_units', direction: 'asc' }],
      limit: 3,
    });
    expect(interpretation.pattern).toBe('bottom_n');
    expect(interpretation.matches.map((m) => m.method)).toEqual(['normalized', 'case_insensitive']);
  });

  it('defaults to sum and to 10 and says so', () => {
    const { query, interpretation } = resolve('top region by revenue');
    expect(query.aggregates).toEqual([{ function: 'sum', column: 'revenue' }]);
    expect(query.limit).toBe(10);
    expect(interpretation.defaults).toEqual([
      'limit 10 (no count given after "top")',
      'sum of "revenue" (no aggregate function named)',
    ]);
  });

  it('ranks by count of rows', () => {
    const { query } = resolve('top 5 region by count of rows');
    expect(query.aggregates).toEqual([{ function: 'count' }]);
    expect(query.order_by).toEqual([{ column: 'count_rows', direction: 'desc' }]);
  });

  it('ranks rows by a measure', () => {
    const { query, interpretation } = resolve('top 5 rows by revenue');
    expect(query).toEqual({ order_by: [{ column: 'revenue', direction: 'desc' }], limit: 5 });
    expect(interpretation.pattern).toBe('top_n_rows');
    expect(resolve('bottom 2 by units').query).toEqual({
      order_by: [{ column: 'units', direction: 'asc' }],
      limit: 2,
    });
  });

  it('matches columns by edit distance and records the distance', () => {
    const { query, interpretation } = resolve('top 10 regoin by total revenu');
    expect(query.group_by).toEqual(['region']);
    expect(query.aggregates).toEqual([{ function: 'sum', column: 'revenue' }]);
    expect(interpretation.matches).toEqual([
      { token: 'regoin', column: 'region', method: 'edit_distance', distance: 1 },
      { token: 'revenu', column: 'revenue', method: 'edit_distance', distance: 1 },
    ]);
  });

  it('matches multi-word and dotted column names', () => {
    expect(resolve('count of rows by order date').query.group_by).toEqual(['order_date']);
    expect(resolve('count by customer.name').query.group_by).toEqual(['customer.name']);
  });

  it('resolves <agg> <measure> by|per <dim>', () => {
    expect(resolve('total revenue by region').query).toEqual({
      group_by: ['region'],
      aggregates: [{ function: 'sum', column: 'revenue' }],
    });
    expect(resolve('average units per product').interpretation.pattern).toBe('aggregate_by');
    expect(resolve('max revenue by region and product').query.group_by).toEqual(['region', 'product']);
    expect(resolve('total revenue and average units by region').query.aggregates).toEqual([
      { function: 'sum', column: 'revenue' },
      { function: 'avg', column: 'units' },
    ]);
  });

  it('resolves scalar aggregates and counts', () => {
    expect(resolve('total revenue').query).toEqual({ aggregates: [{ function: 'sum', column: 'revenue' }] });
    expect(resolve('count of rows').query).toEqual({ aggregates: [{ function: 'count' }] });
    expect(resolve('how many rows').interpretation.pattern).toBe('count');
    expect(resolve('number of rows by region').interpretation.pattern).toBe('count_by');
  });

  it('resolves count of rows where <column> is <value>', () => {
    const { query, interpretation } = resolve('count of rows where region is West');
    expect(query).toEqual({
      aggregates: [{ function: 'count' }],
      where: [{ column: 'region', op: 'eq', value: 'West' }],
    });
    expect(interpretation.pattern).toBe('count');
  });

  it('takes multi-word and quoted values, negation, and null tests', () => {
    expect(resolve('region is north america and units over 5').query.where).toEqual([
      { column: 'region', op: 'eq', value: 'north america' },
      { column: 'units', op: 'gt', value: 5 },
    ]);
    expect(resolve('region is "North and South"').query.where).toEqual([
      { column: 'region', op: 'eq', value: 'North and South' },
    ]);
    expect(resolve('region is not West').query.where).toEqual([
      { column: 'region', op: 'ne', value: 'West' },
    ]);
    expect(resolve('product is empty').query.where).toEqual([{ column: 'product', op: 'is_null' }]);
    expect(resolve('product is not null').query.where).toEqual([{ column: 'product', op: 'not_null' }]);
    expect(resolve('is_returned is true').query.where).toEqual([
      { column: 'is_returned', op: 'eq', value: true },
    ]);
  });

  it('resolves over|under|at least|at most|between', () => {
    const where = (text: string) => resolve(text).query.where;
    expect(where('revenue over 100')).toEqual([{ column: 'revenue', op: 'gt', value: 100 }]);
    expect(where('revenue under 99.5')).toEqual([{ column: 'revenue', op: 'lt', value: 99.5 }]);
    expect(where('units at least 3')).toEqual([{ column: 'units', op: 'gte', value: 3 }]);
    expect(where('units at most 3')).toEqual([{ column: 'units', op: 'lte', value: 3 }]);
    expect(where('units greater than 3')).toEqual([{ column: 'units', op: 'gt', value: 3 }]);
    expect(where('units >= 3')).toEqual([{ column: 'units', op: 'gte', value: 3 }]);
    expect(where('units between 2 and 4')).toEqual([
      { column: 'units', op: 'gte', value: 2 },
      { column: 'units', op: 'lte', value: 4 },
    ]);
    expect(where('region contains est')).toEqual([{ column: 'region', op: 'contains', value: 'est' }]);
    expect(where('region starts with We')).toEqual([{ column: 'region', op: 'starts_with', value: 'We' }]);
  });

  it('combines a top-N head with filters', () => {
    const { query } = resolve('top 3 product by total revenue where region is West and units at least 2');
    expect(query.where).toEqual([
      { column: 'region', op: 'eq', value: 'West' },
      { column: 'units', op: 'gte', value: 2 },
    ]);
    expect(query.limit).toBe(3);
  });

  describe('date words against the snapshot time (2024-03-15)', () => {
    const dates = (text: string) => resolve(text).query.where;
    it.each([
      ['today', '2024-03-15', '2024-03-16'],
      ['yesterday', '2024-03-14', '2024-03-15'],
      ['last 7 days', '2024-03-09', '2024-03-16'],
      ['past 2 weeks', '2024-03-02', '2024-03-16'],
      ['this month', '2024-03-01', '2024-04-01'],
      ['last month', '2024-02-01', '2024-03-01'],
      ['this year', '2024-01-01', '2025-01-01'],
      ['last year', '2023-01-01', '2024-01-01'],
      ['this week', '2024-03-11', '2024-03-18'],
      ['last week', '2024-03-04', '2024-03-11'],
      ['this quarter', '2024-01-01', '2024-04-01'],
      ['in 2023', '2023-01-01', '2024-01-01'],
      ['in 2024-02', '2024-02-01', '2024-03-01'],
      ['on 2024-01-05', '2024-01-05', '2024-01-06'],
    ])('%s', (phrase, from, to) => {
      expect(dates(`count of rows ${phrase}`)).toEqual([
        { column: 'order_date', op: 'gte', value: from },
        { column: 'order_date', op: 'lt', value: to },
      ]);
    });

    it('since and before are open-ended', () => {
      expect(dates('rows since 2024-01-01')).toEqual([
        { column: 'order_date', op: 'gte', value: '2024-01-01' },
      ]);
      expect(dates('order_date before 2024-01-01')).toEqual([
        { column: 'order_date', op: 'lt', value: '2024-01-01' },
      ]);
    });

    it('records the date column default and the range', () => {
      const { interpretation } = resolve('total revenue by region last 30 days');
      expect(interpretation.defaults).toContain('date column "order_date" (the only date column)');
      expect(interpretation.dates).toEqual([
        { phrase: 'last 30 days', column: 'order_date', from: '2024-02-15', to: '2024-03-16' },
      ]);
    });

    it('asks which date column when there are several', () => {
      const twoDates = [...columns, { name: 'ship_date', type: 'date' as const, role: 'time' as const }];
      expect(() =>
        resolveNaturalLanguage('count of rows today', { columns: twoDates, snapshotTime }),
      ).toThrow(/say which date column: "order_date", "ship_date"/);
      expect(
        resolveNaturalLanguage('count of rows where ship_date today', { columns: twoDates, snapshotTime })
          .query.where,
      ).toEqual([
        { column: 'ship_date', op: 'gte', value: '2024-03-15' },
        { column: 'ship_date', op: 'lt', value: '2024-03-16' },
      ]);
    });
  });

  it('selects columns, with order and limit clauses', () => {
    expect(resolve('show region, revenue').query).toEqual({ select: ['region', 'revenue'] });
    expect(resolve('show me all rows').query).toEqual({});
    expect(
      resolve('list region and product where units over 2 sorted by revenue desc limit 5').query,
    ).toEqual({
      select: ['region', 'product'],
      where: [{ column: 'units', op: 'gt', value: 2 }],
      order_by: [{ column: 'revenue', direction: 'desc' }],
      limit: 5,
    });
    expect(resolve('total revenue by region order by total revenue desc').query.order_by).toEqual([
      { column: 'sum_revenue', direction: 'desc' },
    ]);
  });

  it('ignores articles and question forms', () => {
    expect(resolve('what are the top 5 products by total revenue?'.replace('?', '')).query.limit).toBe(5);
    expect(resolve('show me the total revenue by region').query.group_by).toEqual(['region']);
  });

  it('is deterministic', () => {
    const a = resolve('top 10 region by total revenue where units over 2 last month');
    const b = resolve('top 10 region by total revenue where units over 2 last month');
    expect(a).toEqual(b);
  });

  describe('refuses rather than guesses', () => {
    it.each([
      ['top 10 region by total revenue; drop table data', /unexpected character ";"/],
      ["region is West' OR 1=1 --", /unbalanced quote|unexpected/],
      ['region is West or 1=1', /could not understand "or 1 = 1"|could not understand/],
      ['select * from data', /unexpected character "\*"/],
      ['revenue) union select 1', /unexpected character "\)"/],
      ['top 10 flavour by total revenue', /"flavour" does not name a column/],
      ['total region by product', /"region" is not numeric/],
      ['units over lots', /expected a number/],
      ['top 10 region by total revenue please now', /could not understand "now"/],
      ['', /empty/],
      ['top 0 region by revenue', /whole number from 1 to 10000/],
    ])('%s', (text, message) => {
      const error = notUnderstood(text);
      expect(error.message).toMatch(message);
      expect(error.hints.length).toBeGreaterThan(0);
      expect(error.hints.join(' ')).toContain('Columns: order_id');
    });

    it('reports two equally close columns as ambiguous', () => {
      const cols: NlColumn[] = [
        { name: 'cost_a', type: 'number', role: 'measure' },
        { name: 'cost_b', type: 'number', role: 'measure' },
        { name: 'site', type: 'string', role: 'dimension' },
      ];
      expect(() => resolveNaturalLanguage('total cost_c by site', { columns: cols, snapshotTime })).toThrow(
        /ambiguous: "cost_c" could mean "cost_a" or "cost_b"/,
      );
    });

    it('refuses very long text', () => {
      expect(notUnderstood(`count of rows where region is ${'x'.repeat(600)}`).message).toMatch(
        /longer than/,
      );
    });
  });
});
