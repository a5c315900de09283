import { ConfigReader } from './config-reader';
import { ConfigNormalizer, RequestedType } from './connector-descriptor';
import { FILE_TYPES, FileType } from './file-types';

/*
 * The config value of each existing type, and the field readers several types share. Each type's own normalizer
 * lives with its descriptor in drivers/<type>.ts.
 */

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** postgres, redshift, mysql, mssql: discrete fields or a DSN (`connection_string` wins when set). */
export interface SqlServerConfig {
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly connection_string?: string;
  readonly ssl_mode?: SslMode;
  /** mssql only: TLS on the TDS connection (default true) and whether to trust a self-signed certificate. */
  readonly encrypt?: boolean;
  readonly trust_server_certificate?: boolean;
  readonly schema?: string;
}

export interface SqliteConfig {
  readonly path?: string;
  readonly connection_string?: string;
}

export interface ClickhouseConfig {
  readonly host?: string;
  readonly port?: number;
  readonly database: string;
  readonly user: string;
  readonly password?: string;
  readonly secure: boolean;
  readonly connection_string?: string;
  readonly url?: string;
}

export interface SnowflakeConfig {
  readonly account?: string;
  readonly user?: string;
  readonly password?: string;
  readonly warehouse?: string;
  readonly database?: string;
  readonly schema?: string;
  readonly role?: string;
  readonly connection_string?: string;
  /** Private-link or test endpoint instead of https://<account>.snowflakecomputing.com. */
  readonly access_url?: string;
}

export interface BigqueryConfig {
  readonly project_id?: string;
  /** Kept as the JSON text even when given as an object, so it is one secret value. */
  readonly service_account_json?: string;
  readonly ambient_credentials: boolean;
  readonly location?: string;
  readonly dataset?: string;
  /** Private endpoint or test stand-in instead of https://bigquery.googleapis.com. */
  readonly endpoint_url?: string;
}

/** What every object-store config shares: which object, and how to parse it. */
export interface ObjectParseOptions {
  readonly file_type?: FileType;
  readonly json_path?: string;
  readonly sheet?: string | number;
  readonly delimiter?: string;
  readonly encoding?: string;
  readonly has_header?: boolean;
}

export interface S3Config extends ObjectParseOptions {
  readonly bucket: string;
  readonly key: string;
  readonly region: string;
  readonly aws_access_key_id?: string;
  readonly aws_secret_access_key?: string;
  readonly aws_session_token?: string;
  readonly endpoint_url?: string;
  readonly anonymous: boolean;
  readonly ambient_credentials: boolean;
}

export interface GcsConfig extends ObjectParseOptions {
  readonly bucket: string;
  readonly blob: string;
  /** A path (inside the import dir) to a service-account JSON file, or the JSON itself. */
  readonly credentials?: string;
  readonly project_id?: string;
  readonly anonymous: boolean;
  readonly ambient_credentials: boolean;
  /** Test hook for S3-compatible emulators and private endpoints (fake-gcs-server style); default googleapis. */
  readonly endpoint_url?: string;
}

export interface AzureConfig extends ObjectParseOptions {
  readonly connection_string?: string;
  readonly account_url?: string;
  readonly blob_url?: string;
  readonly container?: string;
  readonly blob?: string;
  readonly anonymous: boolean;
}

export const REST_AUTH_TYPES = ['none', 'bearer', 'api_key', 'basic'] as const;
export type RestAuthType = (typeof REST_AUTH_TYPES)[number];

export interface RestPagination {
  readonly mode: 'page_number' | 'cursor_path';
  readonly max_pages: number;
  readonly page_param: string;
  readonly start_page: number;
  readonly next_path?: string;
  readonly cursor_param?: string;
  readonly next_link_rel?: string;
  readonly has_more_path?: string;
  readonly page_size_param?: string;
  readonly page_size?: number;
}

export interface RestConfig {
  readonly base_url?: string;
  readonly url?: string;
  readonly auth_type: RestAuthType;
  readonly api_key?: string;
  readonly api_key_header: string;
  readonly username?: string;
  readonly password?: string;
  readonly health_path?: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly params: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly timeout: number;
  readonly data_path?: string;
  readonly pagination?: RestPagination;
}

export interface FileConfig extends ObjectParseOptions {
  readonly file_type: FileType;
  readonly content?: string;
  readonly file_path?: string;
}

/** Types whose fields the spec leaves open: kept as given (secret-named fields masked and encrypted). */
export type OpenConfig = Readonly<Record<string, unknown>>;

/** Drops undefined values so stored and returned configs only show what is set. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** postgres, redshift, mysql, mssql: host/port/database/user or a DSN. */
export function sqlServerConfig(
  defaultPort: (host: string | undefined) => number,
  withSsl: boolean,
): ConfigNormalizer<SqlServerConfig> {
  return (r) => {
    const connectionString = r.string('connection_string');
    const dsn = connectionString !== undefined && connectionString.trim() !== '';
    const host = dsn ? r.string('host') : r.stringOr('host', 'localhost');
    const explicitPort = r.port();
    return compact<SqlServerConfig>({
      host,
      port: explicitPort ?? (dsn ? undefined : defaultPort(host)),
      database: r.string('database', { required: !dsn }),
      user: r.string('user', { aliases: ['username'], required: !dsn }),
      password: r.string('password'),
      connection_string: dsn ? connectionString : undefined,
      ssl_mode: withSsl ? r.oneOf('ssl_mode', SSL_MODES, 'prefer', { aliases: ['sslmode'] }) : undefined,
      schema: r.string('schema'),
    });
  };
}

export function httpUrlField(r: ConfigReader, key: string): string | undefined {
  const value = r.string(key);
  if (value !== undefined && !isHttpUrl(value)) r.problem(key, 'must be an http(s) URL');
  return value;
}

/** A service-account JSON given as an object or a string; kept as text. */
export function serviceAccount(
  r: ConfigReader,
  key: string,
  aliases: readonly string[] = [],
): string | undefined {
  const value = r.json(key, { aliases });
  if (value === undefined) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  r.problem(key, 'must be a JSON object or a non-empty string');
  return undefined;
}

export function isServiceAccountJson(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as unknown;
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as Record<string, unknown>).client_email === 'string' &&
      typeof (parsed as Record<string, unknown>).private_key === 'string'
    );
  } catch {
    return false;
  }
}

export function parseOptions(r: ConfigReader, requested: RequestedType): ObjectParseOptions {
  const fileType = r.has('file_type')
    ? r.oneOf('file_type', [...FILE_TYPES, 'xlsx', 'xls'] as const, 'csv')
    : undefined;
  const sheetRaw = r.json('sheet');
  let sheet: string | number | undefined;
  if (typeof sheetRaw === 'string') sheet = /^\d+$/.test(sheetRaw) ? Number(sheetRaw) : sheetRaw;
  else if (typeof sheetRaw === 'number' && Number.isSafeInteger(sheetRaw) && sheetRaw >= 0) sheet = sheetRaw;
  else if (sheetRaw !== undefined && sheetRaw !== null)
    r.problem('sheet', 'must be a sheet name or a 0-based index');
  const delimiter = r.string('delimiter');
  if (delimiter !== undefined && delimiter.length !== 1 && delimiter !== '\\t') {
    r.problem('delimiter', 'must be a single character');
  }
  const encoding = r.string('encoding');
  if (encoding !== undefined && !isKnownEncoding(encoding))
    r.problem('encoding', 'is not a known text encoding');
  return compact<ObjectParseOptions>({
    file_type: fileType === 'xlsx' || fileType === 'xls' ? 'excel' : (fileType ?? requested.fileType),
    json_path: r.string('json_path'),
    sheet,
    delimiter: delimiter === '\\t' ? '\t' : delimiter,
    encoding,
    has_header: r.has('has_header') ? r.boolean('has_header', true) : undefined,
  });
}

export function isKnownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

export function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

export function isHttpUrl(value: string): boolean {
  const url = parseUrl(value);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
}
