import { SqlServerConfig } from '../connector-config';
import { BrowseItem, RowSelection } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { DeclaredText } from '../formats/records';

export const CONNECT_TIMEOUT_MS = 10_000;
export const FETCH_ROWS = 1000;
export const MAX_BROWSE_TABLES = 1000;

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly params: URLSearchParams;
}

/** A SQL server's endpoint: a `connection_string` (SQLAlchemy style) wins; missing parts come from the fields. */
export function sqlEndpoint(
  config: SqlServerConfig,
  defaultPort: number,
  schemes: readonly string[],
): Endpoint {
  if (!config.connection_string) {
    return {
      host: config.host ?? 'localhost',
      port: config.port ?? defaultPort,
      database: config.database,
      user: config.user,
      password: config.password,
      params: new URLSearchParams(),
    };
  }
  let url: URL;
  try {
    url = new URL(config.connection_string);
  } catch {
    throw new ConnectorError(
      'invalid_config',
      'connection_string is not a valid DSN (scheme://user:password@host:port/database).',
    );
  }
  const scheme = url.protocol.replace(/:$/, '').split('+')[0].toLowerCase();
  if (!schemes.includes(scheme)) {
    throw new ConnectorError(
      'invalid_config',
      `connection_string must use one of the schemes ${schemes.join(', ')}.`,
    );
  }
  const decode = (value: string): string | undefined =>
    value === '' ? undefined : decodeURIComponent(value);
  return {
    host: decode(url.hostname.replace(/^\[|\]$/g, '')) ?? config.host ?? 'localhost',
    port: url.port ? Number(url.port) : (config.port ?? defaultPort),
    database: decode(url.pathname.replace(/^\//, '')) ?? config.database,
    user: decode(url.username) ?? config.user,
    password: decode(url.password) ?? config.password,
    params: url.searchParams,
  };
}

export function quoteIdent(name: string, style: 'ansi' | 'mysql' | 'tsql'): string {
  switch (style) {
    case 'ansi':
      return `"${name.replace(/"/g, '""')}"`;
    case 'mysql':
      return `\`${name.replace(/`/g, '``')}\``;
    case 'tsql':
      return `[${name.replace(/]/g, ']]')}]`;
  }
}

export function splitTable(selection: RowSelection): { schema?: string; table: string } {
  const table = selection.table ?? '';
  if (selection.schema) return { schema: selection.schema, table };
  const dot = table.indexOf('.');
  return dot > 0 ? { schema: table.slice(0, dot), table: table.slice(dot + 1) } : { table };
}

export function selectionSql(selection: RowSelection, style: 'ansi' | 'mysql' | 'tsql'): string {
  if (selection.query !== undefined && selection.query.trim() !== '') {
    if (selection.table)
      throw new ConnectorError('invalid_config', 'Give either a table or a query, not both.');
    return selection.query.trim().replace(/;\s*$/, '');
  }
  if (!selection.table)
    throw new ConnectorError('invalid_config', 'A table or a read-only query is required to read rows.');
  const { schema, table } = splitTable(selection);
  return `SELECT * FROM ${schema ? `${quoteIdent(schema, style)}.` : ''}${quoteIdent(table, style)}`;
}

/** For servers without a read-only session mode: one SELECT/WITH statement; the database role is the real boundary. */
export function assertReadOnlyQuery(sql: string): void {
  const stripped = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').trim();
  if (!/^(select|with)\b/i.test(stripped) || stripped.replace(/;\s*$/, '').includes(';')) {
    throw new ConnectorError('invalid_config', 'Only one read-only SELECT statement is allowed.');
  }
  if (
    /\b(insert|update|delete|merge|drop|alter|create|truncate|grant|revoke|call|exec|execute)\b/i.test(
      stripped.replace(/^with\b/i, ''),
    )
  ) {
    throw new ConnectorError('invalid_config', 'Only one read-only SELECT statement is allowed.');
  }
}

/** Seconds since the epoch and nanoseconds as `YYYY-MM-DDTHH:MM:SS[.f…]Z`, the fraction cut to the column's scale. */
export function instantText(seconds: number, nanos: number, scale: number): string {
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
  const fraction = String(nanos)
    .padStart(9, '0')
    .slice(0, Math.min(Math.max(scale, 0), 9));
  return `${whole}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/** A SQL value as a cell; a string is declared text unless `shaped` (a server's text of a date or big number). */
export function sqlCell(value: unknown, shaped = true): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return shaped ? value : new DeclaredText(value);
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array)
    return new DeclaredText(Buffer.from(value).toString('base64'));
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'object') return new DeclaredText(JSON.stringify(value));
  return value;
}

export function sqlRecord(
  row: Record<string, unknown>,
  shaped?: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = sqlCell(value, shaped?.has(key) ?? true);
  return out;
}

interface ColumnRow {
  table_schema: string;
  table_name: string;
  table_type: string;
  column_name: string;
  data_type: string;
}

export function tablesFromColumns(rows: readonly ColumnRow[]): BrowseItem[] {
  const items = new Map<
    string,
    { name: string; kind: string; schema: string; columns: { name: string; type: string }[] }
  >();
  for (const row of rows) {
    const key = `${row.table_schema}.${row.table_name}`;
    let item = items.get(key);
    if (!item) {
      if (items.size >= MAX_BROWSE_TABLES) continue;
      item = {
        name: row.table_name,
        kind: /view/i.test(row.table_type) ? 'view' : 'table',
        schema: row.table_schema,
        columns: [],
      };
      items.set(key, item);
    }
    item.columns.push({ name: row.column_name, type: row.data_type });
  }
  return [...items.values()];
}

export async function* pullBatches(
  fetch: () => Promise<{ rows: Record<string, unknown>[]; shaped?: ReadonlySet<string> }>,
  size: number,
): AsyncGenerator<Record<string, unknown>[]> {
  for (;;) {
    const { rows, shaped } = await fetch();
    if (rows.length > 0) yield rows.map((row) => sqlRecord(row, shaped));
    if (rows.length < size) return;
  }
}
