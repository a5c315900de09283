import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { dataFileType, innerPath, readDataFile } from './data-file';

const REQUEST_TIMEOUT_MS = 60_000;
/** A JSON answer (metadata, a tree listing) larger than this is refused rather than buffered. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

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

/** One GET through the egress guard; redirects are reported, not chased with the token. */
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

export async function getBytes(
  url: string,
  headers: Record<string, string>,
  what: string,
  ctx: DriverContext,
): Promise<Uint8Array> {
  return boundedBytes(await get(url, headers, what, ctx), what, ctx.parseLimits.maxDecompressedBytes);
}

export function apiUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export const MAX_TREE_ENTRIES = 5000;

export interface RepoDescription extends DriverTestOutcome {
  readonly defaultBranch: string;
}

// The REST API of one repository host; ref resolution, browse and reading rows are shared (`repoHostDriver`).
export interface RepoHostApi<C extends { readonly ref?: string }> {
  describe(config: C, ctx: DriverContext): Promise<RepoDescription>;
  /** The files of the tree at `ref`, stopping once there are more than `max`; `complete` when that is all of them. */
  listFiles(
    config: C,
    ref: string,
    max: number,
    ctx: DriverContext,
  ): Promise<{ readonly files: readonly BrowseItem[]; readonly complete: boolean }>;
  readFile(config: C, path: string, ref: string, ctx: DriverContext): Promise<Uint8Array>;
}

export function repoHostDriver<C extends { readonly ref?: string }>(api: RepoHostApi<C>): ConnectorDriver<C> {
  const refOf = async (config: C, ref: string | undefined, ctx: DriverContext): Promise<string> =>
    ref ?? config.ref ?? (await api.describe(config, ctx)).defaultBranch;

  async function* rows(config: C, selection: RowSelection, ctx: DriverContext) {
    const path = innerPath(selection.path);
    dataFileType(path);
    const ref = await refOf(config, selection.ref, ctx);
    yield* readDataFile({ name: path, bytes: await api.readFile(config, path, ref, ctx) }, ctx);
  }

  return {
    async test(config, ctx): Promise<DriverTestOutcome> {
      const { message, details } = await api.describe(config, ctx);
      return { message, details };
    },
    async browse(config, ctx): Promise<BrowseResult> {
      const ref = await refOf(config, undefined, ctx);
      const listed = await api.listFiles(config, ref, MAX_TREE_ENTRIES, ctx);
      const items = listed.files.slice(0, MAX_TREE_ENTRIES);
      const complete = listed.complete && listed.files.length <= MAX_TREE_ENTRIES;
      const data = items.filter((item) => item.type !== undefined).length;
      const shown = complete ? `${items.length} file(s)` : `the first ${items.length} files`;
      return {
        items,
        total: items.length,
        message: `${shown} at ${ref}, ${data} of them data files.`,
        discovery: { ref, complete },
      };
    },
    readRows(config, selection, ctx) {
      return limitBatches(rows(config, selection, ctx), selection.limit);
    },
  };
}

/** A GitHub or Bitbucket owner, workspace or repository name: never `.` or `..`, which would move the API path. */
export function isRepoName(value: string): boolean {
  return /^[A-Za-z0-9_.-]+$/.test(value) && !/^\.\.?$/.test(value);
}
