import { ConfigReader } from '../config-reader';
import { compact, isHttpUrl, REST_AUTH_TYPES, RestConfig, RestPagination } from '../connector-config';
import { ConfigNormalizer } from '../connector-descriptor';

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

/** The REST config: URL, one of four auth styles (flat fields or an `auth` envelope), paging. */
export const restConfig: ConfigNormalizer<RestConfig> = (r) => {
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
