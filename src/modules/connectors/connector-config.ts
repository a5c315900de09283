import {
  ConfigBoolean,
  ConfigEnum,
  ConfigJson,
  ConfigPort,
  ConfigString,
  compact,
  ConnectorConfig,
  FieldCheck,
  storedFields,
} from './config-fields';
import { RequestedType } from './connector-descriptor';
import { FILE_TYPES, FileType } from './file-types';

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

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

export const httpUrl: FieldCheck<unknown> = (value) =>
  typeof value === 'string' && !isHttpUrl(value) ? 'must be an http(s) URL' : undefined;

const isDsn = (config: { connection_string?: unknown }): boolean =>
  typeof config.connection_string === 'string' && config.connection_string.trim() !== '';

export const unlessDsn = <V>(value: V): { shown: V; of: (config: SqlServerFields) => V | undefined } => ({
  shown: value,
  of: (config) => (isDsn(config) ? undefined : value),
});

/** Each type adds its port (with its default) and TLS fields. */
export abstract class SqlServerFields extends ConnectorConfig<SqlServerConfig> {
  @ConfigString({ description: 'A DSN (SQLAlchemy style accepted); wins over the discrete fields when set.' })
  connection_string?: string;

  @ConfigString<SqlServerFields>({ default: unlessDsn('localhost') })
  host?: string;

  /** Each type declares it again with its default (`override port?: number = undefined`, so it keeps this place). */
  @ConfigPort()
  port?: number;

  @ConfigString<SqlServerFields>({
    required: (config) => !isDsn(config),
    description: 'Required without a DSN.',
  })
  database?: string;

  @ConfigString<SqlServerFields>({
    aliases: ['username'],
    required: (config) => !isDsn(config),
    description: 'Required without a DSN.',
  })
  user?: string;

  @ConfigString({ secret: true })
  password?: string;

  @ConfigString()
  schema?: string;

  toConfig(): SqlServerConfig {
    return compact<SqlServerConfig>({
      ...storedFields(this),
      connection_string: isDsn(this) ? this.connection_string : undefined,
    });
  }
}

export const SERVICE_ACCOUNT_PROBLEM = 'must be a JSON object or a non-empty string';

export function serviceAccountProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return undefined;
  return SERVICE_ACCOUNT_PROBLEM;
}

export const serviceAccountText = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : value;

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

const sheetProblem: FieldCheck<unknown> = (value) =>
  value === undefined ||
  typeof value === 'string' ||
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
    ? undefined
    : 'must be a sheet name or a 0-based index';

export abstract class ObjectParseFields<C> extends ConnectorConfig<C> {
  @ConfigEnum([...FILE_TYPES, 'xlsx', 'xls'], {
    description:
      "Default: from the type alias, else the name's extension, else csv. xlsx and xls mean excel.",
  })
  file_type?: string;

  @ConfigString({ description: 'JSON: the path of the record array inside the document.' })
  json_path?: string;

  @ConfigJson({
    checks: [sheetProblem],
    read: (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    schema: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] },
    description: 'Excel: a sheet name or a 0-based index.',
  })
  sheet?: string | number;

  @ConfigString({
    checks: [
      (value) =>
        typeof value === 'string' && value.length !== 1 && value !== '\\t'
          ? 'must be a single character'
          : undefined,
    ],
    description: 'CSV: one character; "\\t" for a tab.',
  })
  delimiter?: string;

  @ConfigString({
    checks: [
      (value) =>
        typeof value === 'string' && !isKnownEncoding(value) ? 'is not a known text encoding' : undefined,
    ],
  })
  encoding?: string;

  @ConfigBoolean()
  has_header?: boolean;

  protected parseOptions(requested: RequestedType): ObjectParseOptions {
    const fileType = this.file_type as FileType | 'xlsx' | 'xls' | undefined;
    return compact({
      file_type: fileType === 'xlsx' || fileType === 'xls' ? 'excel' : (fileType ?? requested.fileType),
      json_path: this.json_path,
      sheet: this.sheet,
      delimiter: this.delimiter === '\\t' ? '\t' : this.delimiter,
      encoding: this.encoding,
      has_header: this.has_header,
    });
  }
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
