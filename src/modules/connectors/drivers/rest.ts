import { RestConfig } from '../connector-config';
import {
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { parseExactJson } from '../formats/exact-json';
import {
  checkJsonNesting,
  CollisionLog,
  getPath,
  locateRecords,
  ParsedRecord,
  toFlatRecords,
} from '../formats';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { inferFields } from './infer-fields';
import { originOf, requireLinkOnOrigin, requireRedirectOnOrigin } from './rest-origin';
import { defineConnector } from '../connector-descriptor';
import { RestConnectorConfig } from './rest-config';

export const MAX_REST_RESPONSE_BYTES = 256 * 1024 * 1024;

interface Page {
  readonly url: string;
  readonly response: Response;
  readonly body: unknown;
}

function joinUrl(base: string, path: string | undefined): string {
  if (!path) return base;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The test's auth header rules (spec): none; bearer; api_key under api_key_header; basic. */
export function testAuthHeaders(config: RestConfig): Record<string, string> {
  switch (config.auth_type) {
    case 'none':
      return {};
    case 'bearer':
      return config.api_key ? { Authorization: `Bearer ${config.api_key}` } : {};
    case 'api_key':
      return config.api_key ? { [config.api_key_header]: config.api_key } : {};
    case 'basic':
      return {
        Authorization: `Basic ${Buffer.from(`${config.username ?? ''}:${config.password ?? ''}`).toString('base64')}`,
      };
  }
}

function mergeHeaders(
  base: Readonly<Record<string, string>>,
  extra: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(extra)) {
    if (!Object.keys(out).some((h) => h.toLowerCase() === name.toLowerCase())) out[name] = value;
  }
  return out;
}

function statusError(status: number, url: string): ConnectorError {
  const message = `HTTP ${status} from ${url}.`;
  if (status === 401 || status === 403)
    return new ConnectorError('auth_failed', `Authentication failed: ${message}`);
  if (status === 404) return new ConnectorError('not_found', `Not found: ${message}`);
  if (status === 408 || status === 504)
    return new ConnectorError('timeout', `The server timed out: ${message}`);
  return new ConnectorError('remote_error', `The server answered ${message}`);
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

interface RestRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

async function send(
  ctx: DriverContext,
  url: string,
  init: RestRequest,
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await ctx.egress.fetch(
      url,
      { ...init, redirect: 'manual', signal },
      { purpose: 'connector', orgId: ctx.orgId },
    );
  } catch (error) {
    throw (
      classifyNetworkError(error, url) ??
      new ConnectorError('unreachable', `${url} cannot be fetched: ${errorMessage(error)}`)
    );
  }
}

/** Follows redirects itself, each one only on `origin` and re-checked by the guard as a new request. */
async function request(
  ctx: DriverContext,
  url: string,
  init: RestRequest,
  timeoutS: number,
  origin: string,
): Promise<Response> {
  const signals = [AbortSignal.timeout(Math.round(timeoutS * 1000))];
  if (ctx.signal) signals.push(ctx.signal);
  const signal = AbortSignal.any(signals);
  let current = url;
  let hop: RestRequest = init;
  for (let redirects = 0; ; redirects += 1) {
    const response = await send(ctx, current, hop, signal);
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();
    const next = requireRedirectOnOrigin(response.status, current, location, origin);
    if (redirects >= MAX_REDIRECTS)
      throw new ConnectorError('remote_error', `${url} redirects more than ${MAX_REDIRECTS} times.`);
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && hop.method === 'POST')
    ) {
      const headers = Object.fromEntries(
        Object.entries(hop.headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
      );
      hop = { method: 'GET', headers };
    }
    current = next;
  }
}

async function readJson(response: Response, url: string): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_REST_RESPONSE_BYTES) {
    throw new ConnectorError(
      'invalid_payload',
      `The response of ${url} is larger than ${MAX_REST_RESPONSE_BYTES} bytes.`,
    );
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.byteLength > MAX_REST_RESPONSE_BYTES) {
    throw new ConnectorError(
      'invalid_payload',
      `The response of ${url} is larger than ${MAX_REST_RESPONSE_BYTES} bytes.`,
    );
  }
  checkJsonNesting(bytes, `The response of ${url}`);
  const text = new TextDecoder().decode(bytes);
  try {
    return parseExactJson(text);
  } catch {
    throw new ConnectorError('invalid_payload', `The response of ${url} is not valid JSON.`);
  }
}

function recordsOf(config: RestConfig, body: unknown): unknown[] {
  if (config.data_path) {
    const found = getPath(body, config.data_path);
    if (!Array.isArray(found)) {
      throw new ConnectorError(
        'invalid_payload',
        `data_path "${config.data_path}" does not reach a records array.`,
      );
    }
    return found;
  }
  return locateRecords(body);
}

export function linkTarget(header: string | null, rel: string, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2])?.[1].toLowerCase().split(/\s+/) ?? [];
    if (rels.includes(rel.toLowerCase())) return new URL(match[1], base).toString();
  }
  return undefined;
}

function isEmptySignal(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === '' || value === 0;
}

function withParams(url: string, params: Readonly<Record<string, string>>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

/**
 * The fetch step: `headers` verbatim (never derived from auth_type), `params`, a JSON `body` for POST, the
 * timeout, and bounded paging. Reaching max_pages without a termination signal is an error, never a truncation.
 */
export async function* fetchPages(config: RestConfig, ctx: DriverContext): AsyncGenerator<Page> {
  const target = config.url ?? config.base_url;
  if (!target) throw new ConnectorError('invalid_config', 'url is required to fetch records (or base_url).');
  const origin = originOf(target);
  const headers: Record<string, string> = { Accept: 'application/json', ...config.headers };
  let body: string | undefined;
  if (config.method === 'POST' && config.body !== undefined) {
    body = typeof config.body === 'string' ? config.body : JSON.stringify(config.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json';
  }
  const fetchPage = async (url: string): Promise<Page> => {
    const response = await request(
      ctx,
      url,
      { method: config.method, headers, body },
      config.timeout,
      origin,
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw statusError(response.status, url);
    }
    return { url, response, body: await readJson(response, url) };
  };

  const paging = config.pagination;
  const baseParams: Record<string, string> = { ...config.params };
  if (paging?.page_size_param && paging.page_size !== undefined)
    baseParams[paging.page_size_param] = String(paging.page_size);
  if (!paging) {
    yield await fetchPage(withParams(target, baseParams));
    return;
  }

  if (paging.mode === 'page_number') {
    let url: string | undefined;
    for (let index = 0; index < paging.max_pages; index += 1) {
      url ??= withParams(target, { ...baseParams, [paging.page_param]: String(paging.start_page + index) });
      const page = await fetchPage(url);
      if (recordsOf(config, page.body).length === 0) return;
      yield page;
      if (paging.has_more_path && isEmptySignal(getPath(page.body, paging.has_more_path))) return;
      if (paging.next_path && isEmptySignal(getPath(page.body, paging.next_path))) return;
      if (paging.next_link_rel) {
        const next = linkTarget(page.response.headers.get('link'), paging.next_link_rel, page.url);
        if (next === undefined) return;
        url = requireLinkOnOrigin(next, origin);
      } else {
        url = undefined;
      }
    }
    throw new ConnectorError(
      'pagination_error',
      `Pagination reached max_pages (${paging.max_pages}) without a termination signal; raise max_pages or add one.`,
    );
  }

  const nextPath = paging.next_path ?? '';
  const seen = new Set<string>();
  let url = withParams(target, baseParams);
  for (let index = 0; index < paging.max_pages; index += 1) {
    const page = await fetchPage(url);
    yield page;
    const cursor = getPath(page.body, nextPath);
    if (isEmptySignal(cursor)) return;
    const key = typeof cursor === 'string' ? cursor : JSON.stringify(cursor);
    if (seen.has(key)) {
      throw new ConnectorError('pagination_error', `Pagination loop: the cursor "${key}" was already seen.`);
    }
    seen.add(key);
    if (paging.cursor_param) url = withParams(target, { ...baseParams, [paging.cursor_param]: key });
    else if (/^(https?:\/\/|\/)/i.test(key))
      url = requireLinkOnOrigin(new URL(key, page.url).toString(), origin);
    else
      throw new ConnectorError(
        'invalid_config',
        'cursor_param is required when next_path holds a cursor, not a URL.',
      );
  }
  throw new ConnectorError(
    'pagination_error',
    `Pagination reached max_pages (${paging.max_pages}) while a next cursor was still present; raise max_pages.`,
  );
}

async function* records(config: RestConfig, ctx: DriverContext): AsyncGenerator<ParsedRecord[]> {
  const collisions = new CollisionLog();
  try {
    for await (const page of fetchPages(config, ctx)) {
      const batch = toFlatRecords(recordsOf(config, page.body), collisions);
      for (let i = 0; i < batch.length; i += ctx.batchSize) yield batch.slice(i, i + ctx.batchSize);
    }
  } finally {
    const warning = collisions.message();
    if (warning) ctx.warn(warning);
  }
}

export const restDriver: ConnectorDriver<RestConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    if (!config.base_url) throw new ConnectorError('invalid_config', 'base_url is required.');
    const url = joinUrl(config.base_url, config.health_path);
    const response = await request(
      ctx,
      url,
      { method: 'GET', headers: mergeHeaders(testAuthHeaders(config), config.headers) },
      config.timeout,
      originOf(config.base_url),
    );
    await response.body?.cancel();
    if (!response.ok) throw statusError(response.status, url);
    return {
      message: `Reached ${url}: HTTP ${response.status}.`,
      details: { http_status: response.status, url },
    };
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const sample: ParsedRecord[] = [];
    for await (const batch of limitBatches(records(config, ctx), 20)) sample.push(...batch);
    const fields = inferFields(sample);
    return {
      items: fields.map((field) => ({ name: field.name, kind: 'field', type: field.type })),
      total: fields.length,
      message: `Fetched ${sample.length} sample record(s) with ${fields.length} field(s) from the first page.`,
      discovery: {
        url: config.url ?? config.base_url,
        sample,
        fields,
        paginated: config.pagination !== undefined,
      },
    };
  },

  readRows(config, selection: RowSelection, ctx) {
    return limitBatches(records(config, ctx), selection.limit);
  },
};

export const restConnector = defineConnector({
  name: 'rest',
  family: 'api',
  aliases: [{ name: 'rest_api' }],
  config: RestConnectorConfig,
  destinationFields: ['base_url', 'url'],
  testedStatus: 'ok',
  driver: restDriver,
});
