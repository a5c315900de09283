import { Command, Option } from 'commander';

export type OutputFormat = 'table' | 'json';

export interface FormatOptions {
  readonly format: OutputFormat;
}

export function withFormat(command: Command): Command {
  return command.addOption(
    new Option('--format <format>', 'table for people, json for scripts (the API answer as is)')
      .choices(['table', 'json'])
      .default('table'),
  );
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '-';
}

export function renderTable<Row extends object>(
  rows: readonly Row[],
  columns: readonly (keyof Row & string)[],
): string {
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const header = columns.map((column) => column.toUpperCase());
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i].length)));
  return [header, ...cells]
    .map((line) =>
      line
        .map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function leaves(value: unknown, path: string): [string, unknown][] {
  if (typeof value !== 'object' || value === null) return [[path, value]];
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [`${path}[${i}]`, item])
    : Object.entries(value).map(([key, child]) => [path === '' ? key : `${path}.${key}`, child]);
  // An empty object or array is a value of its own, not nothing.
  if (entries.length === 0) return [[path, Array.isArray(value) ? '[]' : '{}']];
  return entries.flatMap(([childPath, child]) => leaves(child, childPath));
}

function renderRecord(record: Record<string, unknown>): string {
  const lines = leaves(record, '');
  const width = Math.max(...lines.map(([field]) => field.length));
  return lines.map(([field, value]) => `${field.padEnd(width)}  ${cell(value)}`).join('\n');
}

export function printResult<Row extends object>(
  format: string,
  result: unknown,
  // The columns are fields of the row's contract type: a field the API renames fails the type-check.
  table?: { rows: readonly Row[]; columns: readonly (keyof Row & string)[]; empty?: string },
): void {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (table) {
    process.stdout.write(
      table.rows.length === 0 ? `${table.empty ?? 'none'}\n` : `${renderTable(table.rows, table.columns)}\n`,
    );
    return;
  }
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    process.stdout.write(`${renderRecord(result as Record<string, unknown>)}\n`);
    return;
  }
  process.stdout.write(`${cell(result)}\n`);
}
