import { isPlainObject } from '../../../common/validation';
import {
  compact,
  ConfigEnum,
  ConfigFields,
  ConfigInteger,
  ConfigJson,
  ConfigObject,
  ConfigPositiveNumber,
  ConfigScalarMap,
  ConfigString,
  ConfigStringMap,
  ConnectorConfig,
  FieldCheck,
  matchOf,
} from '../config-fields';
import { isHttpUrl, REST_AUTH_TYPES, RestAuthType, RestConfig, RestPagination } from '../connector-config';

const PAGINATION_MODES = ['page_number', 'cursor_path'] as const;
const AUTH_MODES = ['none', 'token', 'bearer', 'oauth', 'basic', 'api_key'] as const;
type AuthMode = (typeof AUTH_MODES)[number];
const TOKEN_MODES: readonly AuthMode[] = ['token', 'bearer', 'oauth'];
const DEFAULT_API_KEY_HEADER = 'X-API-Key';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const isBlank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

export class RestPaginationFields extends ConfigFields {
  @ConfigEnum(PAGINATION_MODES, {
    default: 'page_number',
    missing: 'is required (page_number or cursor_path)',
  })
  mode!: RestPagination['mode'];

  @ConfigInteger({
    min: 1,
    missing: 'is required (a positive integer)',
    description: 'At most this many pages.',
  })
  max_pages!: number;

  @ConfigString({ default: 'page' })
  page_param?: string;

  @ConfigInteger({ min: 0, default: 1 })
  start_page?: number;

  @ConfigString<RestPaginationFields>({
    checks: [
      (value, config) =>
        matchOf(PAGINATION_MODES, config.mode) === 'cursor_path' && !value
          ? 'is required for cursor_path paging'
          : undefined,
    ],
    description: 'cursor_path: where the next cursor is in each answer (dotted path).',
  })
  next_path?: string;

  @ConfigString({ description: 'cursor_path: the query parameter that carries the cursor.' })
  cursor_param?: string;

  @ConfigString()
  next_link_rel?: string;

  @ConfigString()
  has_more_path?: string;

  @ConfigString()
  page_size_param?: string;

  @ConfigInteger({ min: 1 })
  page_size?: number;
}

const modeOf = (auth: { mode?: unknown }): AuthMode => (matchOf(AUTH_MODES, auth.mode) as AuthMode) ?? 'none';

/** A field of the `auth` envelope is read only by the modes that use it; elsewhere it is unknown. */
const usedIn =
  (modes: readonly AuthMode[]): FieldCheck<RestAuthFields> =>
  (value, auth) =>
    value !== undefined && !modes.includes(modeOf(auth)) ? 'is not a known field' : undefined;

export class RestAuthFields extends ConfigFields {
  @ConfigEnum(AUTH_MODES, { default: 'none' })
  mode?: AuthMode;

  @ConfigString<RestAuthFields>({
    aliases: ['access_token'],
    secret: true,
    required: (auth) => TOKEN_MODES.includes(modeOf(auth)) && auth.api_key === undefined,
    checks: [usedIn([...TOKEN_MODES, 'api_key'])],
    description: 'token, bearer, oauth: sent as Authorization: Bearer <token>.',
  })
  token?: string;

  @ConfigString<RestAuthFields>({
    aliases: ['key', 'value'],
    secret: true,
    required: (auth) => modeOf(auth) === 'api_key' && auth.token === undefined,
    checks: [usedIn([...TOKEN_MODES, 'api_key'])],
    description: 'api_key: sent under api_key_header.',
  })
  api_key?: string;

  @ConfigString<RestAuthFields>({
    aliases: ['header'],
    checks: [usedIn(['api_key'])],
    description: 'api_key: the header name (default: the flat api_key_header, X-API-Key).',
  })
  api_key_header?: string;

  @ConfigString<RestAuthFields>({
    aliases: ['user'],
    required: (auth) => modeOf(auth) === 'basic',
    checks: [usedIn(['basic'])],
  })
  username?: string;

  @ConfigString<RestAuthFields>({ secret: true, checks: [usedIn(['basic'])] })
  password?: string;
}

interface ResolvedAuth {
  readonly authType: RestAuthType;
  readonly apiKey?: string;
  readonly apiKeyHeader: string;
  readonly username?: string;
  readonly password?: string;
  readonly header?: readonly [string, string];
}

/** The flat fields, overridden by an `auth` envelope; works on raw values too (a value of the wrong type is unset). */
function resolveAuth(config: RestConnectorConfig): ResolvedAuth {
  const authType = (matchOf(REST_AUTH_TYPES, config.auth_type) as RestAuthType | undefined) ?? 'none';
  const flatHeader = text(config.api_key_header);
  const flat: ResolvedAuth = {
    authType,
    apiKey: text(config.api_key) ?? (authType === 'bearer' ? text(config.token) : undefined),
    apiKeyHeader: isBlank(flatHeader) ? DEFAULT_API_KEY_HEADER : (flatHeader as string),
    username: text(config.username),
    password: text(config.password),
  };
  const auth: unknown = config.auth;
  if (!isPlainObject(auth)) return flat;
  const envelope = auth as RestAuthFields;
  const mode = modeOf(envelope);
  if (TOKEN_MODES.includes(mode)) {
    const token = text(envelope.token) ?? text(envelope.api_key);
    return {
      ...flat,
      authType: 'bearer',
      apiKey: token,
      header: token ? ['Authorization', `Bearer ${token}`] : undefined,
    };
  }
  if (mode === 'basic') {
    const username = text(envelope.username);
    const password = text(envelope.password) ?? '';
    return {
      ...flat,
      authType: 'basic',
      username,
      password,
      header: isBlank(username)
        ? undefined
        : ['Authorization', `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`],
    };
  }
  if (mode === 'api_key') {
    const apiKey = text(envelope.api_key) ?? text(envelope.token);
    const header = text(envelope.api_key_header);
    const apiKeyHeader = isBlank(header) ? flat.apiKeyHeader : (header as string);
    return {
      ...flat,
      authType: 'api_key',
      apiKey,
      apiKeyHeader,
      header: apiKey ? [apiKeyHeader, apiKey] : undefined,
    };
  }
  return flat;
}

const httpUrlUnlessEmpty: FieldCheck<unknown> = (value) =>
  typeof value === 'string' && value !== '' && !isHttpUrl(value) ? 'must be an http(s) URL' : undefined;

export class RestConnectorConfig extends ConnectorConfig<RestConfig> {
  @ConfigString({
    checks: [httpUrlUnlessEmpty],
    description: 'The endpoint to read (also the base_url if none).',
  })
  url?: string;

  @ConfigString({ checks: [httpUrlUnlessEmpty], description: 'Default: url.' })
  base_url?: string;

  @ConfigStringMap({
    description: 'Sent verbatim with every request; mirror the credential here for fetching.',
  })
  headers?: Record<string, string>;

  @ConfigEnum(REST_AUTH_TYPES, { default: 'none' })
  auth_type?: RestAuthType;

  @ConfigObject(() => RestAuthFields, {
    description:
      'The canonical auth envelope {mode: none|token|bearer|oauth|basic|api_key, ...}; wins over the flat fields.',
  })
  auth?: RestAuthFields;

  @ConfigString<RestConnectorConfig>({
    secret: true,
    checks: [
      (_value, config) => {
        const auth = resolveAuth(config);
        if (auth.authType === 'bearer' && !auth.apiKey) return 'is required for bearer auth (or token)';
        if (auth.authType === 'api_key' && !auth.apiKey) return 'is required for api_key auth';
        return undefined;
      },
    ],
    description: 'bearer: the token; api_key: the key.',
  })
  api_key?: string;

  @ConfigString({ secret: true, description: 'bearer: the token, when api_key is not given.' })
  token?: string;

  @ConfigString({ default: DEFAULT_API_KEY_HEADER })
  api_key_header?: string;

  @ConfigString<RestConnectorConfig>({
    aliases: ['user'],
    checks: [
      (_value, config) => {
        const auth = resolveAuth(config);
        return auth.authType === 'basic' && !auth.username ? 'is required for basic auth' : undefined;
      },
    ],
  })
  username?: string;

  @ConfigString({ secret: true })
  password?: string;

  @ConfigEnum(['GET', 'POST'], { default: 'GET' })
  method?: 'GET' | 'POST';

  @ConfigJson({
    description: 'POST: the JSON body sent.',
    schema: {
      oneOf: [
        { type: 'object', additionalProperties: true },
        { type: 'array', items: {} },
        { type: 'string' },
        { type: 'number' },
        { type: 'boolean' },
      ],
    },
  })
  body?: unknown;

  @ConfigString({ description: 'The path the connection test calls instead of the URL itself.' })
  health_path?: string;

  @ConfigScalarMap({ description: 'Query parameters added to every request.' })
  params?: Record<string, string>;

  @ConfigPositiveNumber({ default: 30, description: 'Seconds per request.' })
  timeout?: number;

  @ConfigString({
    description: 'Where the records are in each answer (dotted path); default: the answer itself.',
  })
  data_path?: string;

  @ConfigObject(() => RestPaginationFields)
  pagination?: RestPaginationFields;

  toConfig(): RestConfig {
    const auth = resolveAuth(this);
    const headers = { ...(this.headers ?? {}) };
    if (auth.header) setHeader(headers, auth.header[0], auth.header[1]);
    const baseUrl = this.base_url ?? this.url;
    return compact<RestConfig>({
      base_url: baseUrl === '' ? undefined : baseUrl,
      url: this.url,
      auth_type: auth.authType,
      api_key: auth.apiKey,
      api_key_header: auth.apiKeyHeader,
      username: auth.username,
      password: auth.password,
      health_path: this.health_path,
      method: this.method ?? 'GET',
      headers,
      params: this.params ?? {},
      body: this.body,
      timeout: this.timeout ?? 30,
      data_path: this.data_path,
      pagination: this.pagination as RestPagination | undefined,
    });
  }
}

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const existing = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
  if (existing === undefined) headers[name] = value;
}
