import { ColumnRole, ColumnType, isNumericType, isTemporalType } from '../datasets/datasets.types';
import { AmbiguousColumnError, ColumnMatch, matchColumn } from './column-matcher';
import {
  CalendarUnit,
  dayOf,
  formatDay,
  parseDay,
  periodOf,
  previousPeriod,
  rollingWindow,
  addDays,
} from './nl-dates';
import { Token, tokenize, TokenizeError } from './nl-tokens';
import { AggregateFunction, aggregateName, ScalarValue, WhereOperator } from './query-grammar';

export interface NlColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly role: ColumnRole;
}

export interface NlContext {
  readonly columns: readonly NlColumn[];
  /** The dataset's snapshot time: date words (today, last 7 days...) are relative to it, never to the clock. */
  readonly snapshotTime: Date;
}

export interface ResolvedQuery {
  select?: string[];
  where?: { column: string; op: WhereOperator; value?: ScalarValue | ScalarValue[] }[];
  group_by?: string[];
  aggregates?: { function: AggregateFunction; column?: string }[];
  order_by?: { column: string; direction: 'asc' | 'desc' }[];
  limit?: number;
}

export type NlPattern =
  | 'top_n'
  | 'bottom_n'
  | 'top_n_rows'
  | 'bottom_n_rows'
  | 'aggregate_by'
  | 'aggregate'
  | 'count'
  | 'count_by'
  | 'select'
  | 'filter';

export interface DateInterpretation {
  readonly phrase: string;
  readonly column: string;
  readonly from?: string;
  readonly to?: string;
}

export interface Interpretation {
  readonly pattern: NlPattern;
  readonly text: string;
  readonly matches: readonly ColumnMatch[];
  readonly defaults: readonly string[];
  readonly dates: readonly DateInterpretation[];
  readonly snapshot_time: string;
}

export interface NlResolution {
  readonly query: ResolvedQuery;
  readonly interpretation: Interpretation;
}

export class QueryNotUnderstoodError extends Error {
  constructor(
    message: string,
    readonly hints: readonly string[],
  ) {
    super(message);
  }
}

export const MAX_QUERY_TEXT = 500;
const DEFAULT_TOP = 10;

const AGGREGATE_WORDS: Readonly<Record<string, AggregateFunction>> = {
  total: 'sum',
  sum: 'sum',
  average: 'avg',
  avg: 'avg',
  mean: 'avg',
  count: 'count',
  min: 'min',
  minimum: 'min',
  lowest: 'min',
  smallest: 'min',
  max: 'max',
  maximum: 'max',
  highest: 'max',
  largest: 'max',
  biggest: 'max',
};

const ROW_WORDS = new Set(['rows', 'row', 'records', 'record', 'entries', 'entry', 'lines', 'data']);
const FILTER_INTRO = new Set(['where', 'with', 'when', 'whose', 'having', 'for', 'that', 'which']);
const SELECT_WORDS = new Set(['show', 'list', 'get', 'select', 'display', 'find', 'return']);
const FILLER = new Set(['the', 'a', 'an', 'please', 'me', 'us', 'what', 'whats']);
const UNIT_WORDS: Readonly<Record<string, CalendarUnit>> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  quarter: 'quarter',
  quarters: 'quarter',
  year: 'year',
  years: 'year',
};

const RESERVED = new Set([
  ...Object.keys(AGGREGATE_WORDS),
  ...ROW_WORDS,
  ...FILTER_INTRO,
  ...SELECT_WORDS,
  ...Object.keys(UNIT_WORDS),
  'top',
  'bottom',
  'by',
  'per',
  'each',
  'of',
  'is',
  'are',
  'was',
  'were',
  'equals',
  'equal',
  'to',
  'and',
  'or',
  'not',
  'over',
  'under',
  'above',
  'below',
  'than',
  'greater',
  'more',
  'less',
  'fewer',
  'exceeds',
  'exceeding',
  'at',
  'least',
  'most',
  'no',
  'in',
  'on',
  'since',
  'before',
  'after',
  'between',
  'contains',
  'containing',
  'includes',
  'including',
  'starts',
  'begins',
  'today',
  'yesterday',
  'last',
  'past',
  'this',
  'limit',
  'first',
  'order',
  'sort',
  'sorted',
  'ordered',
  'asc',
  'desc',
  'ascending',
  'descending',
  'null',
  'empty',
  'missing',
  'how',
  'many',
  'number',
  'all',
  'true',
  'false',
  'yes',
]);

const GENERAL_HINTS = [
  'Patterns: "top 10 <dimension> by total <measure>", "bottom 5 <dimension> by average <measure>", ' +
    '"total <measure> by <dimension>", "count of rows where <column> is <value>", "show <column>, <column>".',
  'Filters: "<column> is <value>", "<column> is not <value>", "<measure> over|under|at least|at most <number>", ' +
    '"<column> contains <text>"; date words: today, yesterday, last 7 days, this month, last month, this year, ' +
    'since YYYY-MM-DD, in YYYY; join filters with "and".',
  'Quote values that contain keywords: region is "North and South".',
];

type Condition = NonNullable<ResolvedQuery['where']>[number];

class Parser {
  private pos = 0;
  readonly matches: ColumnMatch[] = [];
  readonly defaults: string[] = [];
  readonly dates: DateInterpretation[] = [];
  private readonly names: string[];
  private readonly byName: Map<string, NlColumn>;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly context: NlContext,
  ) {
    this.names = context.columns.map((c) => c.name);
    this.byName = new Map(context.columns.map((c) => [c.name, c]));
  }

  resolve(): { query: ResolvedQuery; pattern: NlPattern } {
    const { query, pattern } = this.head();
    const where = [...(query.where ?? []), ...this.filters()];
    this.orderClause(query, pattern);
    this.limitClause(query);
    if (!this.atEnd()) this.fail(`could not understand "${this.rest()}"`);
    if (where.length > 0) query.where = where;
    return { query, pattern };
  }

  private head(): { query: ResolvedQuery; pattern: NlPattern } {
    const word = this.peek()?.lower;
    if (word === 'top' || word === 'bottom') return this.topHead(word);
    if (word === 'how' && this.peek(1)?.lower === 'many') {
      this.pos += 2;
      this.optional(ROW_WORDS);
      return this.aggregateTail([{ function: 'count' }], 'count');
    }
    if (word === 'number' && this.peek(1)?.lower === 'of') {
      this.pos += 2;
      return this.countHead();
    }
    if (word !== undefined && AGGREGATE_WORDS[word] !== undefined && !this.namesColumnHere()) {
      return this.aggregateHead();
    }
    if (word !== undefined && SELECT_WORDS.has(word)) {
      this.pos++;
      return this.selectHead();
    }
    if (this.atEnd()) this.fail('the query is empty');
    if (this.optional(ROW_WORDS) !== undefined || word === 'all') {
      if (word === 'all') {
        this.pos++;
        this.optional(ROW_WORDS);
      }
      return { query: {}, pattern: 'select' };
    }
    if (this.startsCondition()) return { query: {}, pattern: 'filter' };
    return this.selectHead();
  }

  private topHead(word: 'top' | 'bottom'): { query: ResolvedQuery; pattern: NlPattern } {
    this.pos++;
    const direction = word === 'top' ? 'desc' : 'asc';
    let limit = DEFAULT_TOP;
    const count = this.peek();
    if (count?.kind === 'number') {
      limit = this.positiveInteger(count);
      this.pos++;
    } else {
      this.defaults.push(`limit ${DEFAULT_TOP} (no count given after "${word}")`);
    }
    const rowRanking = this.peek()?.lower === 'by' || this.optional(ROW_WORDS) !== undefined;
    if (rowRanking) {
      this.expect('by');
      const measure = this.column('a column to rank rows by');
      return {
        query: { order_by: [{ column: measure, direction }], limit },
        pattern: word === 'top' ? 'top_n_rows' : 'bottom_n_rows',
      };
    }
    const dimension = this.column(`the dimension to rank after "${word}"`);
    this.expect('by');
    const aggregate = this.measure(true);
    const as = aggregateName(aggregate.function, aggregate.column);
    return {
      query: {
        group_by: [dimension],
        aggregates: [aggregate],
        order_by: [{ column: as, direction }],
        limit,
      },
      pattern: word === 'top' ? 'top_n' : 'bottom_n',
    };
  }

  /** `<agg> [of] <measure>` or `count [of] [rows]`; `defaultSum` applies sum when no function is named. */
  private measure(defaultSum: boolean): { function: AggregateFunction; column?: string } {
    let fn = this.aggregateWord();
    if (fn === undefined && this.peek()?.lower === 'number' && this.peek(1)?.lower === 'of') {
      this.pos += 2;
      fn = 'count';
    }
    this.optional(new Set(['of']));
    if (fn === 'count') {
      if (this.optional(ROW_WORDS) !== undefined || this.atEnd() || this.atClauseBoundary()) {
        return { function: 'count' };
      }
      return { function: 'count', column: this.column('a column to count') };
    }
    const column = this.column('a measure');
    if (fn === undefined) {
      if (!defaultSum) this.fail('name an aggregate function: total, average, count, min or max');
      if (!isNumericType(this.byName.get(column)?.type ?? 'string')) {
        this.fail(`"${column}" is not numeric: say "count of rows", "min ${column}" or "max ${column}"`);
      }
      fn = 'sum';
      this.defaults.push(`sum of "${column}" (no aggregate function named)`);
    }
    if ((fn === 'sum' || fn === 'avg') && !isNumericType(this.byName.get(column)?.type ?? 'string')) {
      this.fail(`"${column}" is not numeric, so it has no ${fn === 'sum' ? 'total' : 'average'}`);
    }
    return { function: fn, column };
  }

  private aggregateHead(): { query: ResolvedQuery; pattern: NlPattern } {
    const aggregates = [this.measure(false)];
    while (this.peek()?.lower === 'and' && this.isAggregateWord(this.peek(1))) {
      this.pos++;
      aggregates.push(this.measure(false));
    }
    const onlyCount = aggregates.length === 1 && aggregates[0].function === 'count' && !aggregates[0].column;
    return this.aggregateTail(aggregates, onlyCount ? 'count' : 'aggregate');
  }

  private countHead(): { query: ResolvedQuery; pattern: NlPattern } {
    if (this.optional(ROW_WORDS) !== undefined || this.atEnd() || this.atClauseBoundary()) {
      return this.aggregateTail([{ function: 'count' }], 'count');
    }
    return this.aggregateTail([{ function: 'count', column: this.column('a column to count') }], 'aggregate');
  }

  /** Optional `by|per|for each <dimension>[, <dimension>]` after aggregates. */
  private aggregateTail(
    aggregates: { function: AggregateFunction; column?: string }[],
    pattern: NlPattern,
  ): { query: ResolvedQuery; pattern: NlPattern } {
    const word = this.peek()?.lower;
    const forEach = word === 'for' && this.peek(1)?.lower === 'each';
    if (word === 'by' || word === 'per' || forEach) {
      this.pos += forEach ? 2 : 1;
      const groupBy = [this.column('a dimension to group by')];
      while (
        (this.peek()?.lower === ',' || this.peek()?.lower === 'and') &&
        !this.isAggregateWord(this.peek(1)) &&
        this.columnAhead(1)
      ) {
        this.pos++;
        groupBy.push(this.column('a dimension to group by'));
      }
      return {
        query: { group_by: groupBy, aggregates },
        pattern: pattern === 'count' ? 'count_by' : 'aggregate_by',
      };
    }
    return { query: { aggregates }, pattern };
  }

  private selectHead(): { query: ResolvedQuery; pattern: NlPattern } {
    if (this.peek()?.lower === 'all') this.pos++;
    if (this.optional(ROW_WORDS) !== undefined || this.atEnd() || this.atClauseBoundary()) {
      return { query: {}, pattern: 'select' };
    }
    const select = [this.column('a column to show')];
    while ((this.peek()?.lower === ',' || this.peek()?.lower === 'and') && this.columnAhead(1)) {
      this.pos++;
      select.push(this.column('a column to show'));
    }
    return { query: { select }, pattern: 'select' };
  }

  private filters(): Condition[] {
    const conditions: Condition[] = [];
    if (this.atEnd() || this.atOrderOrLimit()) return conditions;
    const word = this.peek()?.lower;
    if (word !== undefined && FILTER_INTRO.has(word)) this.pos++;
    else if (!this.startsCondition()) return conditions;
    conditions.push(...this.condition());
    for (;;) {
      if (this.peek()?.lower === 'and' || this.peek()?.lower === ',') this.pos++;
      else if (!this.startsDatePhrase()) break;
      conditions.push(...this.condition());
    }
    return conditions;
  }

  private startsCondition(): boolean {
    if (this.startsDatePhrase()) return true;
    const saved = this.pos;
    try {
      const span = this.columnSpan();
      if (span === undefined) return false;
      this.pos = saved + span.length;
      const next = this.peek();
      return (
        next !== undefined &&
        (next.kind === 'symbol' || this.isOperatorWord(next.lower) || this.startsDatePhrase())
      );
    } catch {
      return false;
    } finally {
      this.pos = saved;
    }
  }

  private isOperatorWord(word: string): boolean {
    return [
      'is',
      'are',
      'was',
      'equals',
      'over',
      'under',
      'above',
      'below',
      'greater',
      'more',
      'less',
      'fewer',
      'exceeds',
      'exceeding',
      'at',
      'no',
      'between',
      'contains',
      'containing',
      'includes',
      'including',
      'starts',
      'begins',
      'in',
      'not',
    ].includes(word);
  }

  private condition(): Condition[] {
    if (this.startsDatePhrase()) return this.dateCondition(this.timeColumn());
    const name = this.column('a column to filter on');
    const column = this.byName.get(name) as NlColumn;
    if (isTemporalType(column.type) && this.startsDatePhrase()) return this.dateCondition(name);
    const token = this.next(`an operator after "${name}"`);
    switch (token.lower) {
      case 'is':
      case 'are':
      case 'was':
      case '=':
      case '==':
      case 'equals': {
        if (token.lower === 'equals') this.optional(new Set(['to']));
        const negated = this.optional(new Set(['not'])) !== undefined;
        const nullWord = this.optional(new Set(['null', 'empty', 'missing']));
        if (nullWord !== undefined) return [{ column: name, op: negated ? 'not_null' : 'is_null' }];
        if (this.peek()?.lower === 'equal' && this.peek(1)?.lower === 'to') this.pos += 2;
        if (isTemporalType(column.type) && this.startsDatePhrase()) {
          if (negated) this.fail('negated date phrases are not supported');
          return this.dateCondition(name);
        }
        const comparison = this.comparisonOperator();
        if (comparison !== undefined) {
          if (negated) this.fail(`"is not ${comparison}" is not supported: use the opposite comparison`);
          return this.comparison(column, comparison);
        }
        return [{ column: name, op: negated ? 'ne' : 'eq', value: this.value(column) }];
      }
      case '!=':
      case '<>':
        return [{ column: name, op: 'ne', value: this.value(column) }];
      case 'not':
        if (this.optional(new Set(['in'])) !== undefined)
          this.fail('"not in" is not supported: use "is not"');
        this.pos--;
        this.fail(`could not understand "${this.rest()}"`);
        break;
      case 'between': {
        const low = this.value(column);
        this.expect('and');
        const high = this.value(column);
        return [
          { column: name, op: 'gte', value: low },
          { column: name, op: 'lte', value: high },
        ];
      }
      case 'contains':
      case 'containing':
      case 'includes':
      case 'including':
        return [{ column: name, op: 'contains', value: this.textValue(column) }];
      case 'starts':
      case 'begins':
        this.expect('with');
        return [{ column: name, op: 'starts_with', value: this.textValue(column) }];
      case 'in': {
        const values = [this.value(column)];
        while (this.peek()?.lower === ',' || (this.peek()?.lower === 'or' && this.peek(1) !== undefined)) {
          this.pos++;
          values.push(this.value(column));
        }
        return [{ column: name, op: 'in', value: values }];
      }
      default: {
        this.pos--;
        const comparison = this.comparisonOperator();
        if (comparison === undefined)
          this.fail(`expected an operator after "${name}", found "${token.text}"`);
        return this.comparison(column, comparison);
      }
    }
    return [];
  }

  /** over|above|greater than|more than|> ; under|below|less than|< ; at least|>= ; at most|<= */
  private comparisonOperator(): WhereOperator | undefined {
    const word = this.peek()?.lower ?? '';
    const second = this.peek(1)?.lower;
    const take = (n: number, op: WhereOperator): WhereOperator => {
      this.pos += n;
      if (this.peek()?.lower === 'than') this.pos++;
      return op;
    };
    switch (word) {
      case '>':
      case 'over':
      case 'above':
      case 'exceeds':
      case 'exceeding':
        return take(1, 'gt');
      case '<':
      case 'under':
      case 'below':
        return take(1, 'lt');
      case '>=':
        return take(1, 'gte');
      case '<=':
        return take(1, 'lte');
      case 'greater':
      case 'more':
        return second === 'than' ? take(2, 'gt') : undefined;
      case 'less':
      case 'fewer':
        return second === 'than' ? take(2, 'lt') : undefined;
      case 'at':
        if (second === 'least') return take(2, 'gte');
        if (second === 'most') return take(2, 'lte');
        return undefined;
      case 'no':
        if (second === 'less' || second === 'fewer') return take(2, 'gte');
        if (second === 'more') return take(2, 'lte');
        return undefined;
      default:
        return undefined;
    }
  }

  private comparison(column: NlColumn, op: WhereOperator): Condition[] {
    if (column.type === 'boolean') this.fail(`"${column.name}" is true or false; it cannot be compared`);
    if (isTemporalType(column.type)) {
      const token = this.next(`a date after the comparison on "${column.name}"`);
      const day = parseDay(token.text);
      if (!day) this.fail(`expected a date YYYY-MM-DD for "${column.name}", found "${token.text}"`);
      return [{ column: column.name, op, value: token.text }];
    }
    return [{ column: column.name, op, value: this.value(column) }];
  }

  private startsDatePhrase(): boolean {
    const word = this.peek()?.lower ?? '';
    const second = this.peek(1);
    switch (word) {
      case 'today':
      case 'yesterday':
        return true;
      case 'last':
      case 'past':
      case 'this':
        return second !== undefined && (second.kind === 'number' || UNIT_WORDS[second.lower] !== undefined);
      case 'since':
      case 'before':
      case 'after':
      case 'on':
        return second !== undefined && parseDay(second.text) !== undefined;
      case 'in':
        return second !== undefined && /^\d{4}(-\d{2})?$/.test(second.text);
      default:
        return false;
    }
  }

  private timeColumn(): string {
    const time = this.context.columns.filter((c) => c.role === 'time' || isTemporalType(c.type));
    if (time.length === 0) this.fail('the dataset has no date column for a date phrase');
    if (time.length > 1) {
      this.fail(
        `say which date column: ${time.map((c) => `"${c.name}"`).join(', ')} (e.g. "${time[0].name} last 7 days")`,
      );
    }
    this.defaults.push(`date column "${time[0].name}" (the only date column)`);
    return time[0].name;
  }

  private dateCondition(column: string): Condition[] {
    const start = this.pos;
    const snapshot = dayOf(this.context.snapshotTime);
    const word = this.next('a date phrase').lower;
    let range: { from?: Date; to?: Date };
    switch (word) {
      case 'today':
        range = periodOf(snapshot, 'day');
        break;
      case 'yesterday':
        range = previousPeriod(snapshot, 'day');
        break;
      case 'last':
      case 'past':
      case 'this': {
        const count = this.peek()?.kind === 'number' ? this.positiveInteger(this.next('a count')) : undefined;
        const unitToken = this.next('a unit (days, weeks, months, years)');
        const unit = UNIT_WORDS[unitToken.lower];
        if (unit === undefined)
          this.fail(`expected days, weeks, months, quarters or years, found "${unitToken.text}"`);
        if (word === 'this') {
          if (count !== undefined) this.fail('"this" takes no count');
          range = periodOf(snapshot, unit);
        } else {
          range = count === undefined ? previousPeriod(snapshot, unit) : rollingWindow(snapshot, count, unit);
        }
        break;
      }
      case 'since':
        range = { from: parseDay(this.next('a date').text) };
        break;
      case 'after':
        range = { from: addDays(parseDay(this.next('a date').text) as Date, 1) };
        break;
      case 'before':
        range = { to: parseDay(this.next('a date').text) };
        break;
      case 'on': {
        const day = parseDay(this.next('a date').text) as Date;
        range = periodOf(day, 'day');
        break;
      }
      case 'in': {
        const text = this.next('a year').text;
        const [year, month] = text.split('-').map(Number);
        if (month !== undefined && (month < 1 || month > 12)) this.fail(`"${text}" is not a month`);
        const anchor = new Date(Date.UTC(year, (month ?? 1) - 1, 1));
        range = periodOf(anchor, month === undefined ? 'year' : 'month');
        break;
      }
      default:
        this.fail(`could not understand the date phrase "${word}"`);
    }
    const from = range.from ? formatDay(range.from) : undefined;
    const to = range.to ? formatDay(range.to) : undefined;
    const phrase = this.tokens
      .slice(start, this.pos)
      .map((t) => t.text)
      .join(' ');
    this.dates.push({ phrase, column, ...(from ? { from } : {}), ...(to ? { to } : {}) });
    const conditions: Condition[] = [];
    if (from) conditions.push({ column, op: 'gte', value: from });
    if (to) conditions.push({ column, op: 'lt', value: to });
    return conditions;
  }

  private atOrderOrLimit(): boolean {
    const word = this.peek()?.lower;
    return word === 'order' || word === 'sort' || word === 'sorted' || word === 'ordered' || word === 'limit';
  }

  private orderClause(query: ResolvedQuery, pattern: NlPattern): void {
    const word = this.peek()?.lower;
    if (word !== 'order' && word !== 'sort' && word !== 'sorted' && word !== 'ordered') return;
    this.pos++;
    this.expect('by');
    const token = this.peek();
    let column: string;
    const grouped = query.group_by !== undefined || query.aggregates !== undefined;
    if (grouped && token && this.isAggregateWord(token)) {
      const aggregate = this.measure(false);
      column = aggregateName(aggregate.function, aggregate.column);
      if (!query.aggregates?.some((a) => aggregateName(a.function, a.column) === column)) {
        query.aggregates = [...(query.aggregates ?? []), aggregate];
      }
    } else {
      column = this.column('a column to sort by');
      if (grouped && !query.group_by?.includes(column)) {
        this.fail(`"${column}" is not a group of this ${pattern} query; sort by a group or an aggregate`);
      }
    }
    const direction = this.optional(new Set(['asc', 'ascending', 'desc', 'descending']));
    query.order_by = [
      { column, direction: direction === 'desc' || direction === 'descending' ? 'desc' : 'asc' },
      ...(query.order_by ?? []).filter((t) => t.column !== column),
    ];
  }

  private limitClause(query: ResolvedQuery): void {
    const word = this.peek()?.lower;
    if (word !== 'limit' && word !== 'first') return;
    this.pos++;
    query.limit = this.positiveInteger(this.next('a number after limit'));
  }

  private namesColumnHere(): boolean {
    const token = this.peek();
    if (!token) return false;
    const next = this.peek(1);
    // "count by region" or "total revenue": an aggregate word followed by more text is an aggregate.
    return next === undefined && this.names.some((n) => n.toLowerCase() === token.lower);
  }

  private isAggregateWord(token: Token | undefined): boolean {
    return token !== undefined && AGGREGATE_WORDS[token.lower] !== undefined;
  }

  private aggregateWord(): AggregateFunction | undefined {
    const token = this.peek();
    if (!token || AGGREGATE_WORDS[token.lower] === undefined) return undefined;
    this.pos++;
    return AGGREGATE_WORDS[token.lower];
  }

  private isColumnWord(token: Token): boolean {
    return this.names.some((n) => n.toLowerCase() === token.lower);
  }

  /**
   * The longest run of up to four tokens here that names a column. A keyword may be part of a longer name
   * ("order date") only when the whole run matches without typos, so a misspelling never swallows a keyword.
   */
  private columnSpan(): { length: number; match: ColumnMatch } | undefined {
    const first = this.peek(0);
    if (!first || first.kind === 'symbol' || first.kind === 'number') return undefined;
    let available = 0;
    while (available < 4 && this.peek(available) && (this.peek(available) as Token).kind !== 'symbol')
      available++;
    for (let length = available; length >= 1; length--) {
      const tokens = this.tokens.slice(this.pos, this.pos + length);
      const withKeyword = tokens.some(
        (t) => t.kind !== 'quoted' && RESERVED.has(t.lower) && !this.isColumnWord(t),
      );
      const phrase = tokens.map((t) => t.text).join(' ');
      const match = matchColumn(phrase, this.names, !withKeyword);
      if (match) return { length, match };
    }
    return undefined;
  }

  private columnAhead(offset: number): boolean {
    const saved = this.pos;
    this.pos += offset;
    try {
      return this.columnSpan() !== undefined;
    } catch {
      return false;
    } finally {
      this.pos = saved;
    }
  }

  private column(what: string): string {
    const token = this.peek();
    if (!token) this.fail(`expected ${what} at the end`);
    let span: { length: number; match: ColumnMatch } | undefined;
    try {
      span = this.columnSpan();
    } catch (error) {
      if (error instanceof AmbiguousColumnError) this.fail(`ambiguous: ${error.message}`);
      throw error;
    }
    if (!span) {
      const suggestion = this.nearest(token.text);
      this.fail(`expected ${what}, but "${token.text}" does not name a column${suggestion}`);
    }
    this.pos += span.length;
    this.matches.push(span.match);
    return span.match.column;
  }

  private nearest(text: string): string {
    const lower = text.toLowerCase();
    const close = this.names.filter(
      (n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase()),
    );
    return close.length > 0
      ? ` (did you mean ${close
          .slice(0, 3)
          .map((n) => `"${n}"`)
          .join(', ')}?)`
      : '';
  }

  private value(column: NlColumn): ScalarValue {
    const token = this.next(`a value for "${column.name}"`);
    switch (column.type) {
      case 'integer':
      case 'number':
        if (token.kind !== 'number')
          this.fail(`"${column.name}" is numeric: expected a number, found "${token.text}"`);
        return Number(token.text);
      case 'boolean':
        if (token.lower === 'true' || token.lower === 'yes') return true;
        if (token.lower === 'false' || token.lower === 'no') return false;
        return this.fail(`"${column.name}" is true or false, found "${token.text}"`);
      case 'date':
      case 'timestamp':
        if (
          parseDay(token.text) === undefined &&
          !(column.type === 'timestamp' && /^\d{4}-\d{2}-\d{2}T/.test(token.text))
        ) {
          this.fail(`expected a date YYYY-MM-DD for "${column.name}", found "${token.text}"`);
        }
        return token.text;
      case 'string':
        this.pos--;
        return this.textValue(column);
    }
  }

  /** A quoted string, or the words up to the next keyword that joins or ends a clause. */
  private textValue(column: NlColumn): string {
    const first = this.next(`a value for "${column.name}"`);
    if (first.kind === 'quoted') return first.text;
    if (first.kind === 'symbol') this.fail(`expected a value for "${column.name}", found "${first.text}"`);
    const words = [first.text];
    while (this.peek() && !this.atClauseBoundary() && this.peek()?.kind !== 'quoted') {
      words.push((this.peek() as Token).text);
      this.pos++;
    }
    return words.join(' ');
  }

  private atClauseBoundary(): boolean {
    const token = this.peek();
    if (!token) return true;
    if (token.kind === 'symbol') return true;
    return [
      'and',
      'or',
      'where',
      'with',
      'by',
      'per',
      'order',
      'sort',
      'sorted',
      'ordered',
      'limit',
      'having',
    ].includes(token.lower);
  }

  private positiveInteger(token: Token): number {
    const value = Number(token.text);
    if (!Number.isInteger(value) || value < 1 || value > 10_000) {
      this.fail(`expected a whole number from 1 to 10000, found "${token.text}"`);
    }
    return value;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private next(what: string): Token {
    const token = this.tokens[this.pos];
    if (!token) this.fail(`expected ${what} at the end`);
    this.pos++;
    return token;
  }

  private optional(words: ReadonlySet<string>): string | undefined {
    const token = this.peek();
    if (token && token.kind !== 'quoted' && words.has(token.lower)) {
      this.pos++;
      return token.lower;
    }
    return undefined;
  }

  private expect(word: string): void {
    const token = this.peek();
    if (token?.lower !== word)
      this.fail(`expected "${word}"${token ? `, found "${token.text}"` : ' at the end'}`);
    this.pos++;
  }

  private atEnd(): boolean {
    return this.pos >= this.tokens.length;
  }

  private rest(): string {
    return this.tokens
      .slice(this.pos)
      .map((t) => t.text)
      .join(' ');
  }

  fail(message: string): never {
    throw new QueryNotUnderstoodError(message, [
      ...GENERAL_HINTS,
      `Columns: ${this.names.slice(0, 30).join(', ')}${this.names.length > 30 ? ', ...' : ''}.`,
    ]);
  }
}

/** Every token must be consumed by a rule; anything left over, ambiguous or unknown is refused, never guessed. */
export function resolveNaturalLanguage(text: string, context: NlContext): NlResolution {
  const trimmed = text.trim();
  const columns = context.columns.map((c) => c.name);
  const hints = [...GENERAL_HINTS, `Columns: ${columns.slice(0, 30).join(', ')}.`];
  if (trimmed.length === 0) throw new QueryNotUnderstoodError('the query is empty', hints);
  if (trimmed.length > MAX_QUERY_TEXT) {
    throw new QueryNotUnderstoodError(`the query is longer than ${MAX_QUERY_TEXT} characters`, hints);
  }
  let tokens: Token[];
  try {
    tokens = tokenize(trimmed);
  } catch (error) {
    if (error instanceof TokenizeError) throw new QueryNotUnderstoodError(error.message, hints);
    throw error;
  }
  const meaningful = dropFiller(tokens);
  const parser = new Parser(meaningful, context);
  const { query, pattern } = parser.resolve();
  if (query.limit === undefined && (pattern === 'select' || pattern === 'filter')) {
    parser.defaults.push('limit 100 (the default)');
  }
  return {
    query,
    interpretation: {
      pattern,
      text: trimmed,
      matches: parser.matches,
      defaults: parser.defaults,
      dates: parser.dates,
      snapshot_time: context.snapshotTime.toISOString(),
    },
  };
}

/** Articles and politeness carry no meaning here: "show me the top 5 ..." reads as "top 5 ...". */
function dropFiller(tokens: readonly Token[]): Token[] {
  const out = tokens.filter((t) => t.kind !== 'word' || !FILLER.has(t.lower));
  // A leading "what are|is" question form.
  while (out.length > 1 && out[0].kind === 'word' && (out[0].lower === 'are' || out[0].lower === 'is'))
    out.shift();
  while (
    out.length > 1 &&
    out[0].kind === 'word' &&
    SELECT_WORDS.has(out[0].lower) &&
    isRankOrAggregate(out[1])
  ) {
    out.shift();
  }
  return out;
}

function isRankOrAggregate(token: Token): boolean {
  return token.lower === 'top' || token.lower === 'bottom' || AGGREGATE_WORDS[token.lower] !== undefined;
}
