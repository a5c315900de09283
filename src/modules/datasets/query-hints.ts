import { ColumnSchema } from './column-profile';

/** Longer values make poor examples (and a cut one matches nothing), so a hint quotes only a value this short. */
const EXAMPLE_VALUE_MAX_LENGTH = 64;

function quoteValue(value: unknown): string {
  const text = String(value);
  return /^[\p{L}\p{N}_.-]+$/u.test(text) ? text : `"${text.replace(/"/g, '')}"`;
}

/** Example queries that work on this dataset, for people and agents discovering it (computed at ingest). */
export function queryHints(columns: readonly ColumnSchema[]): string[] {
  const dimensions = columns
    .filter((c) => c.role === 'dimension' && c.type === 'string')
    .sort((a, b) => a.distinctCount - b.distinctCount || a.name.localeCompare(b.name));
  const measures = columns.filter((c) => c.role === 'measure');
  const times = columns.filter((c) => c.role === 'time');
  const hints: string[] = [];
  const dimension = dimensions[0];
  const measure = measures[0];
  if (dimension && measure) {
    hints.push(`top 10 ${dimension.name} by total ${measure.name}`);
    hints.push(`average ${measure.name} by ${dimension.name}`);
  }
  if (dimension) hints.push(`count of rows by ${dimension.name}`);
  const example = dimension?.sampleValues.find(
    (value) => value !== null && String(value).length <= EXAMPLE_VALUE_MAX_LENGTH,
  );
  if (dimension && example !== undefined) {
    hints.push(`count of rows where ${dimension.name} is ${quoteValue(example)}`);
  }
  if (measure && typeof measure.max === 'number' && typeof measure.min === 'number') {
    const middle = Math.round((measure.min + measure.max) / 2);
    hints.push(`${measure.name} over ${middle}`);
  }
  if (times.length > 0) {
    const time = times[0];
    hints.push(
      measure
        ? `total ${measure.name} where ${time.name} last 30 days`
        : `count of rows where ${time.name} last 30 days`,
    );
  }
  const shown = columns.slice(0, 3).map((c) => `"${c.name}"`);
  hints.push(`typed: {"select": [${shown.join(', ')}], "limit": 100}`);
  return hints;
}
