import { createSign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isServiceAccountJson } from '../connector-config';
import { DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { confinedFile } from '../local-path';
import { classifyNetworkError, errorMessage } from '../network-errors';

const METADATA_TOKEN_URL =
  'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

export interface ServiceAccount {
  readonly client_email: string;
  readonly private_key: string;
  readonly token_uri?: string;
  readonly project_id?: string;
}

export interface GoogleCredentials {
  /** How requests are authorised: a service account, the host's metadata server, or none (public data). */
  readonly mode: 'service_account' | 'ambient' | 'anonymous';
  readonly serviceAccount?: ServiceAccount;
}

/** A credential value: inline JSON, or a path to a JSON file inside the import dir. */
export async function loadServiceAccount(value: string, ctx: DriverContext): Promise<ServiceAccount> {
  let text = value.trim();
  if (!text.startsWith('{')) {
    const path = await confinedFile(ctx.importDir, text, 'credentials');
    text = await readFile(path, 'utf8');
  }
  if (!isServiceAccountJson(text)) {
    throw new ConnectorError(
      'invalid_config',
      'The credentials are not a service-account JSON (client_email and private_key).',
    );
  }
  return JSON.parse(text) as ServiceAccount;
}

function base64url(value: Buffer | string): string {
  return Buffer.from(value).toString('base64url');
}

/** A signed JWT bearer assertion (RFC 7523) for the service account's token endpoint. */
export function signAssertion(
  account: ServiceAccount,
  scope: string,
  now = Math.floor(Date.now() / 1000),
): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({
      iss: account.client_email,
      scope,
      aud: account.token_uri ?? DEFAULT_TOKEN_URI,
      iat: now,
      exp: now + 3600,
    }),
  );
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(account.private_key, 'base64url');
  } catch (error) {
    throw new ConnectorError(
      'invalid_config',
      `The service-account private key cannot sign: ${errorMessage(error)}`,
    );
  }
  return `${header}.${claims}.${signature}`;
}

async function tokenRequest(ctx: DriverContext, url: string, init: RequestInit): Promise<string> {
  let response: Response;
  try {
    response = await ctx.egress.fetch(
      url,
      { ...init, signal: AbortSignal.timeout(30_000) },
      { purpose: 'connector', orgId: ctx.orgId },
    );
  } catch (error) {
    throw (
      classifyNetworkError(error, url) ??
      new ConnectorError('unreachable', `${url} cannot be reached: ${errorMessage(error)}`)
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: unknown;
    error_description?: unknown;
    error?: unknown;
  };
  if (!response.ok || typeof body.access_token !== 'string') {
    const reason =
      typeof body.error_description === 'string'
        ? body.error_description
        : typeof body.error === 'string'
          ? body.error
          : `HTTP ${response.status}`;
    throw new ConnectorError(
      response.status >= 500 ? 'remote_error' : 'auth_failed',
      `The token request was refused: ${reason}`,
    );
  }
  return body.access_token;
}

/**
 * An OAuth access token for Google APIs, fetched through the egress guard: a service-account JWT grant, or the
 * metadata server when the config asks for ambient credentials (and the policy allows 169.254.169.254).
 */
export async function accessToken(
  credentials: GoogleCredentials,
  scope: string,
  ctx: DriverContext,
): Promise<string | undefined> {
  switch (credentials.mode) {
    case 'anonymous':
      return undefined;
    case 'ambient':
      return tokenRequest(ctx, METADATA_TOKEN_URL, { headers: { 'Metadata-Flavor': 'Google' } });
    case 'service_account': {
      const account = credentials.serviceAccount as ServiceAccount;
      return tokenRequest(ctx, account.token_uri ?? DEFAULT_TOKEN_URI, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: signAssertion(account, scope),
        }).toString(),
      });
    }
  }
}

/** A Google API call through the egress guard; non-2xx statuses map to documented error types. */
export async function googleFetch(
  ctx: DriverContext,
  url: string,
  token: string | undefined,
  init: RequestInit = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await ctx.egress.fetch(
      url,
      {
        ...init,
        headers: {
          ...(init.headers as Record<string, string> | undefined),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        signal: AbortSignal.timeout(120_000),
      },
      { purpose: 'connector', orgId: ctx.orgId },
    );
  } catch (error) {
    throw (
      classifyNetworkError(error, url) ??
      new ConnectorError('unreachable', `${url} cannot be reached: ${errorMessage(error)}`)
    );
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: unknown } };
  const detail = typeof body.error?.message === 'string' ? body.error.message : `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403)
    throw new ConnectorError('auth_failed', `Access denied: ${detail}`);
  if (response.status === 404) throw new ConnectorError('not_found', `Not found: ${detail}`);
  if (response.status === 400)
    throw new ConnectorError('invalid_config', `The request is invalid: ${detail}`);
  throw new ConnectorError('remote_error', `The Google API answered ${detail}`);
}
