import { DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { classifyNetworkError, errorMessage } from '../network-errors';

const REQUEST_TIMEOUT_MS = 60_000;
/** A JSON answer (metadata, a tree listing) larger than this is refused rather than buffered. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** The status of a repository host's REST answer as a documented error type; a token never appears in it. */
function statusError(status: number, what: string): ConnectorError {
  if (status === 401 || status === 403) {
    return new ConnectorError('auth_failed', `Authentication failed reading ${what} (HTTP ${status}).`);
  }
  if (status === 404) return new ConnectorError('not_found', `Not found: ${what} (HTTP 404).`);
  if (status === 408 || status === 504) {
    return new ConnectorError('timeout', `The server timed out reading ${what} (HTTP ${status}).`);
  }
  return new ConnectorError('remote_error', `The server answered HTTP ${status} reading ${what}.`);
}

/**
 * One GET to a repository host's REST API through the egress guard. Redirects are not followed (a moved repository
 * or a link to another host is reported, not chased with the token).
 */
async function get(
  url: string,
  headers: Record<string, string>,
  what: string,
  ctx: DriverContext,
): Promise<Response> {
  const signals = [AbortSignal.timeout(REQUEST_TIMEOUT_MS)];
  if (ctx.signal) signals.push(ctx.signal);
  let response: Response;
  try {
    response = await ctx.egress.fetch(
      url,
      { method: 'GET', headers, redirect: 'manual', signal: AbortSignal.any(signals) },
      { purpose: 'connector', orgId: ctx.orgId },
    );
  } catch (error) {
    const origin = new URL(url).host;
    throw (
      classifyNetworkError(error, origin) ??
      new ConnectorError('unreachable', `${origin} cannot be reached: ${errorMessage(error)}`)
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw statusError(response.status, what);
  }
  return response;
}

async function boundedBytes(response: Response, what: string, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) {
    await response.body?.cancel();
    throw new ConnectorError('invalid_payload', `${what} is ${declared} bytes, more than ${limit}.`);
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.byteLength > limit) {
    throw new ConnectorError('invalid_payload', `${what} is more than ${limit} bytes.`);
  }
  return bytes;
}

export async function getJson(
  url: string,
  headers: Record<string, string>,
  what: string,
  ctx: DriverContext,
): Promise<unknown> {
  const bytes = await boundedBytes(await get(url, headers, what, ctx), what, MAX_JSON_BYTES);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not JSON.`);
  }
}

/** A raw file, refused when bigger than one parse may take. */
export async function getBytes(
  url: string,
  headers: Record<string, string>,
  what: string,
  ctx: DriverContext,
): Promise<Uint8Array> {
  return boundedBytes(await get(url, headers, what, ctx), what, ctx.parseLimits.maxDecompressedBytes);
}

/** `base` + `/` + path, whatever slashes either side has. */
export function apiUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
