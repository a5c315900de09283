import {
  quoteIdentifier,
  ReadySummaries,
  SUMMARY_KEY,
  SUMMARY_ROWS,
  summaryColumn,
} from '../datasets/datasets.types';
import { CompiledQuery, SqlParam } from './query-compiler';
import { QuerySpec } from './query-grammar';

/**
 * The same query over a dimension's summary table, or null when the summary cannot answer it: only an unfiltered
 * group by one summarised dimension whose aggregates are all count(*) or functions of summarised measures. Its
 * outputs carry the direct query's names and its ORDER BY is the direct query's, term for term (ties broken by the
 * group key), so the rows come back identical and in the same order.
 */
export function compileSummaryQuery(
  spec: QuerySpec,
  direct: CompiledQuery,
  summaries: ReadySummaries,
  isStoredColumn: (name: string) => boolean,
): { sql: string; params: readonly SqlParam[] } | null {
  if (spec.where.length > 0 || spec.groupBy.length !== 1) return null;
  const dimension = spec.groupBy[0];
  const table = summaries.tables.get(dimension);
  if (table === undefined || !isStoredColumn(dimension)) return null;
  const outputs = [`${quoteIdentifier(SUMMARY_KEY)} as ${quoteIdentifier(dimension)}`];
  const names = new Set([dimension]);
  for (const aggregate of spec.aggregates) {
    let source: string;
    if (aggregate.column === undefined) {
      if (aggregate.function !== 'count') return null;
      source = SUMMARY_ROWS;
    } else {
      if (!summaries.measures.has(aggregate.column) || !isStoredColumn(aggregate.column)) return null;
      source = summaryColumn(aggregate.function, aggregate.column);
    }
    outputs.push(`${quoteIdentifier(source)} as ${quoteIdentifier(aggregate.as)}`);
    names.add(aggregate.as);
  }
  if (!direct.orderBy.every((term) => names.has(term.column))) return null;
  const order = direct.orderBy.map((t) => `${quoteIdentifier(t.column)} ${t.direction}`).join(', ');
  return {
    sql: `select ${outputs.join(', ')} from ${quoteIdentifier(table)} order by ${order} limit ? offset ?`,
    params: [spec.limit + 1, spec.offset],
  };
}
