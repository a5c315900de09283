import { AppError, ErrorDetail } from '../../common/errors';
import { ConfigReader } from './config-reader';
import { ConnectorType, FILE_TYPES, FileType, ResolvedType } from './connector-types';

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

export interface ConnectorConfigMap {
  postgres: SqlServerConfig;
  mysql: SqlServerConfig;
  mssql: SqlServerConfig;
  redshift: SqlServerConfig;
  sqlite: SqliteConfig;
  clickhouse: ClickhouseConfig;
  snowflake: SnowflakeConfig;
  bigquery: BigqueryConfig;
  s3: S3Config;
  gcs: GcsConfig;
  azure: AzureConfig;
  rest: RestConfig;
  file: FileConfig;
  neo4j: OpenConfig;
  redis: OpenConfig;
  elasticsearch: OpenConfig;
  github_repo: OpenConfig;
  gitlab_repo: OpenConfig;
  bitbucket_repo: OpenConfig;
  local_repo: OpenConfig;
  repo_archive: OpenConfig;
}

/** A validated config with the spec's defaults and aliases applied, tagged with its canonical type. */
export type NormalizedConfig = {
  [K in ConnectorType]: { readonly type: K; readonly values: ConnectorConfigMap[K] };
}[ConnectorType];

type Normalizer<C> = (r: ConfigReader, resolved: ResolvedType) => C;

/** Drops undefined values so stored and returned configs only show what is set. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function sqlServer(
  defaultPort: (host: string | undefined) => number,
  withSsl: boolean,
): Normalizer<SqlServerConfig> {
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

const REDSHIFT_CLUSTER_HOST = /\.redshift(-serverless)?\.amazonaws\.com$/i;

const mssql: Normalizer<SqlServerConfig> = (r, resolved) => ({
  ...sqlServer(() => 1433, false)(r, resolved),
  encrypt: r.boolean('encrypt', true),
  trust_server_certificate: r.boolean('trust_server_certificate', false),
});

const sqlite: Normalizer<SqliteConfig> = (r) => {
  const path = r.string('path');
  const connectionString = r.string('connection_string');
  if (!path && !connectionString) r.problem('path', 'is required (or connection_string)');
  return compact({ path, connection_string: connectionString });
};

const clickhouse: Normalizer<ClickhouseConfig> = (r) => {
  const connectionString = r.string('connection_string');
  const url = r.string('url');
  let host = r.string('host');
  let port = r.port();
  let secureFromUrl: boolean | undefined;
  const endpoint = connectionString || url;
  if (endpoint) {
    const parsed = parseUrl(endpoint);
    if (!parsed)
      r.problem(connectionString ? 'connection_string' : 'url', 'must be a URL such as https://host:8443');
    else {
      secureFromUrl =
        ['https:', 'clickhouses:'].includes(parsed.protocol) || parsed.searchParams.get('secure') === 'true';
      if (!connectionString || !host) host = parsed.hostname || host;
      if (parsed.port && (!connectionString || port === undefined)) port = Number(parsed.port);
    }
  }
  // URL.hostname keeps an IPv6 literal's brackets; the host is stored bare, however it was given.
  host = host?.replace(/^\[(.*)\]$/, '$1');
  if (!host) r.problem('host', 'is required (or connection_string or url)');
  const secure = r.boolean('secure', secureFromUrl ?? false);
  return compact<ClickhouseConfig>({
    host,
    port: port ?? (secure ? 8443 : 8123),
    database: r.stringOr('database', 'default'),
    user: r.stringOr('user', 'default', { aliases: ['username'] }),
    password: r.string('password'),
    secure,
    connection_string: connectionString,
    url,
  });
};

const snowflake: Normalizer<SnowflakeConfig> = (r) => {
  const connectionString = r.string('connection_string');
  const dsn = Boolean(connectionString);
  return compact<SnowflakeConfig>({
    account: r.string('account', { required: !dsn }),
    user: r.string('user', { aliases: ['username'], required: !dsn }),
    password: r.string('password', { required: !dsn }),
    warehouse: r.string('warehouse'),
    database: r.string('database'),
    schema: r.string('schema'),
    role: r.string('role'),
    connection_string: connectionString,
    access_url: httpUrlField(r, 'access_url'),
  });
};

function httpUrlField(r: ConfigReader, key: string): string | undefined {
  const value = r.string(key);
  if (value !== undefined && !isHttpUrl(value)) r.problem(key, 'must be an http(s) URL');
  return value;
}

/** A service-account JSON given as an object or a string; kept as text. */
function serviceAccount(r: ConfigReader, key: string, aliases: readonly string[] = []): string | undefined {
  const value = r.json(key, { aliases });
  if (value === undefined) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  r.problem(key, 'must be a JSON object or a non-empty string');
  return undefined;
}

const bigquery: Normalizer<BigqueryConfig> = (r) => {
  const json = serviceAccount(r, 'service_account_json', ['credentials']);
  if (json !== undefined && !isServiceAccountJson(json)) {
    r.problem('service_account_json', 'must be a service-account JSON (with client_email and private_key)');
  }
  return compact<BigqueryConfig>({
    project_id: r.string('project_id'),
    service_account_json: json,
    ambient_credentials: r.boolean('ambient_credentials', false),
    location: r.string('location'),
    dataset: r.string('dataset'),
    endpoint_url: httpUrlField(r, 'endpoint_url'),
  });
};

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

function parseOptions(r: ConfigReader, resolved: ResolvedType): ObjectParseOptions {
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
    file_type: fileType === 'xlsx' || fileType === 'xls' ? 'excel' : (fileType ?? resolved.fileType),
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

const s3: Normalizer<S3Config> = (r, resolved) => {
  const endpoint = r.string('endpoint_url', { aliases: ['endpoint'] });
  if (endpoint !== undefined && !isHttpUrl(endpoint)) r.problem('endpoint_url', 'must be an http(s) URL');
  return compact<S3Config>({
    bucket: r.string('bucket', { required: true }) ?? '',
    key: r.string('key', { required: true }) ?? '',
    region: r.stringOr('region', 'us-east-1'),
    aws_access_key_id: r.string('aws_access_key_id', { aliases: ['access_key_id'] }),
    aws_secret_access_key: r.string('aws_secret_access_key', { aliases: ['secret_access_key'] }),
    aws_session_token: r.string('aws_session_token', { aliases: ['session_token'] }),
    endpoint_url: endpoint,
    anonymous: r.boolean('anonymous', false),
    ambient_credentials: r.boolean('ambient_credentials', false),
    ...parseOptions(r, resolved),
  });
};

const gcs: Normalizer<GcsConfig> = (r, resolved) => {
  const endpoint = r.string('endpoint_url');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) r.problem('endpoint_url', 'must be an http(s) URL');
  return compact<GcsConfig>({
    bucket: r.string('bucket', { required: true }) ?? '',
    blob: r.string('blob', { required: true }) ?? '',
    credentials: serviceAccount(r, 'credentials', ['service_account_json']),
    project_id: r.string('project_id'),
    anonymous: r.boolean('anonymous', false),
    ambient_credentials: r.boolean('ambient_credentials', false),
    endpoint_url: endpoint,
    ...parseOptions(r, resolved),
  });
};

const azure: Normalizer<AzureConfig> = (r, resolved) => {
  const config = compact<AzureConfig>({
    connection_string: r.string('connection_string'),
    account_url: r.string('account_url'),
    blob_url: r.string('blob_url'),
    container: r.string('container'),
    blob: r.string('blob'),
    anonymous: r.boolean('anonymous', false),
    ...parseOptions(r, resolved),
  });
  if (config.blob_url !== undefined) {
    if (!isHttpUrl(config.blob_url)) r.problem('blob_url', 'must be an http(s) URL');
    return { ...config, anonymous: true };
  }
  if (config.account_url !== undefined && !isHttpUrl(config.account_url)) {
    r.problem('account_url', 'must be an http(s) URL');
  }
  if (config.account_url === undefined && config.connection_string === undefined) {
    r.problem(
      'blob_url',
      'provide blob_url, or account_url + container + blob, or connection_string + container + blob',
    );
  } else {
    if (!config.container) r.problem('container', 'is required with account_url or connection_string');
    if (!config.blob) r.problem('blob', 'is required with account_url or connection_string');
  }
  return config;
};

const PAGINATION_MODES = ['page_number', 'cursor_path'] as const;

function pagination(r: ConfigReader): RestPagination | undefined {
  const p = r.nested('pagination');
  if (!p) return undefined;
  const modeGiven = p.has('mode');
  const mode = p.oneOf('mode', PAGINATION_MODES, 'page_number');
  if (!modeGiven) p.problem('mode', 'is required (page_number or cursor_path)');
  const maxPages = p.integer('max_pages', { min: 1 });
  if (!p.has('max_pages')) p.problem('max_pages', 'is required (a positive integer)');
  const config = compact<RestPagination>({
    mode,
    max_pages: maxPages ?? 1,
    page_param: p.stringOr('page_param', 'page'),
    start_page: p.integer('start_page', { min: 0 }) ?? 1,
    next_path: p.string('next_path'),
    cursor_param: p.string('cursor_param'),
    next_link_rel: p.string('next_link_rel'),
    has_more_path: p.string('has_more_path'),
    page_size_param: p.string('page_size_param'),
    page_size: p.integer('page_size', { min: 1 }),
  });
  if (mode === 'cursor_path' && !config.next_path)
    p.problem('next_path', 'is required for cursor_path paging');
  r.merge(p);
  return config;
}

const rest: Normalizer<RestConfig> = (r) => {
  const url = r.string('url');
  const baseUrl = r.string('base_url') ?? url;
  for (const [key, value] of [
    ['base_url', baseUrl],
    ['url', url],
  ] as const) {
    if (value !== undefined && value !== '' && !isHttpUrl(value)) r.problem(key, 'must be an http(s) URL');
  }
  const headers = { ...(r.stringMap('headers') ?? {}) };
  let authType = r.oneOf('auth_type', REST_AUTH_TYPES, 'none');
  let apiKey = r.string('api_key', { aliases: authType === 'bearer' ? ['token'] : [] });
  if (authType !== 'bearer') r.string('token');
  let apiKeyHeader = r.stringOr('api_key_header', 'X-API-Key');
  let username = r.string('username', { aliases: ['user'] });
  let password = r.string('password');

  const envelope = r.nested('auth');
  if (envelope) {
    const mode = envelope.oneOf(
      'mode',
      ['none', 'token', 'bearer', 'oauth', 'basic', 'api_key'] as const,
      'none',
    );
    switch (mode) {
      case 'none':
        break;
      case 'token':
      case 'bearer':
      case 'oauth': {
        const token = envelope.string('token', { aliases: ['access_token', 'api_key'], required: true });
        authType = 'bearer';
        apiKey = token;
        if (token) setHeader(headers, 'Authorization', `Bearer ${token}`);
        break;
      }
      case 'basic': {
        username = envelope.string('username', { aliases: ['user'], required: true });
        password = envelope.string('password') ?? '';
        authType = 'basic';
        if (username !== undefined) {
          setHeader(
            headers,
            'Authorization',
            `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
          );
        }
        break;
      }
      case 'api_key': {
        apiKey = envelope.string('api_key', { aliases: ['key', 'value', 'token'], required: true });
        apiKeyHeader = envelope.stringOr('api_key_header', apiKeyHeader, { aliases: ['header'] });
        authType = 'api_key';
        if (apiKey) setHeader(headers, apiKeyHeader, apiKey);
        break;
      }
    }
    r.merge(envelope);
  }

  if (authType === 'bearer' && !apiKey) r.problem('api_key', 'is required for bearer auth (or token)');
  if (authType === 'api_key' && !apiKey) r.problem('api_key', 'is required for api_key auth');
  if (authType === 'basic' && !username) r.problem('username', 'is required for basic auth');

  const method = r.oneOf('method', ['GET', 'POST'] as const, 'GET');
  const body = r.json('body');
  return compact<RestConfig>({
    base_url: baseUrl === '' ? undefined : baseUrl,
    url,
    auth_type: authType,
    api_key: apiKey,
    api_key_header: apiKeyHeader,
    username,
    password,
    health_path: r.string('health_path'),
    method,
    headers,
    params: r.scalarMap('params') ?? {},
    body,
    timeout: r.positiveNumber('timeout') ?? 30,
    data_path: r.string('data_path'),
    pagination: pagination(r),
  });
};

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const existing = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
  if (existing === undefined) headers[name] = value;
}

const file: Normalizer<FileConfig> = (r, resolved) => {
  const options = parseOptions(r, resolved);
  const content = r.string('content');
  const filePath = r.string('file_path', { aliases: ['path'] });
  return compact<FileConfig>({
    ...options,
    file_type: options.file_type ?? inferFileType(filePath) ?? 'csv',
    content,
    file_path: filePath,
  });
};

const open: Normalizer<OpenConfig> = (r) => r.all();

const NORMALIZERS: { [K in ConnectorType]: Normalizer<ConnectorConfigMap[K]> } = {
  postgres: sqlServer(() => 5432, true),
  redshift: sqlServer((host) => (host !== undefined && REDSHIFT_CLUSTER_HOST.test(host) ? 5439 : 5432), true),
  mysql: sqlServer(() => 3306, false),
  mssql,
  sqlite,
  clickhouse,
  snowflake,
  bigquery,
  s3,
  gcs,
  azure,
  rest,
  file,
  neo4j: open,
  redis: open,
  elasticsearch: open,
  github_repo: open,
  gitlab_repo: open,
  bitbucket_repo: open,
  local_repo: open,
  repo_archive: open,
};

/**
 * Validates a raw config for its type and applies the spec's defaults and aliases. Throws 422 validation_failed
 * listing every problem by field name (`config.port`).
 */
export function normalizeConfig(resolved: ResolvedType, raw: unknown): NormalizedConfig {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw AppError.validation([{ field: 'config', problem: 'must be an object' }]);
  }
  const reader = new ConfigReader((raw ?? {}) as Record<string, unknown>);
  const values = NORMALIZERS[resolved.type](reader, resolved);
  const problems: ErrorDetail[] = reader.finish();
  if (problems.length > 0) throw AppError.validation(problems);
  return { type: resolved.type, values } as NormalizedConfig;
}

const EXTENSION_TYPES: Readonly<Record<string, FileType>> = {
  csv: 'csv',
  txt: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  json: 'json',
  jsonl: 'json',
  ndjson: 'json',
  xlsx: 'excel',
  xlsm: 'excel',
  xls: 'excel',
  parquet: 'parquet',
  pq: 'parquet',
};

export function inferFileType(name: string | undefined): FileType | undefined {
  const match = name === undefined ? null : /\.([A-Za-z0-9]+)$/.exec(name.split('?')[0]);
  return match ? EXTENSION_TYPES[match[1].toLowerCase()] : undefined;
}

export function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isHttpUrl(value: string): boolean {
  const url = parseUrl(value);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
}
