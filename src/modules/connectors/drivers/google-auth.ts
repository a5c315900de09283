import { readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { EgressContext } from '../../egress/egress.types';
import { isServiceAccountJson } from '../connector-config';
import { DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { guardedAgents } from '../guarded-http-agent';
import { GuardedProxy, startGuardedProxy } from '../guarded-proxy';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { confinedFile } from '../local-path';

const METADATA_TOKEN_URL =
  'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token';
/** Where google-auth-library sends the JWT grant (v10, then v9); it ignores the key's token_uri. */
const LIBRARY_TOKEN_URLS = new Set([
  'https://oauth2.googleapis.com/token',
  'https://www.googleapis.com/oauth2/v4/token',
]);

export interface ServiceAccount {
  readonly client_email: string;
  readonly private_key: string;
  readonly private_key_id?: string;
  readonly token_uri?: string;
  readonly project_id?: string;
}

export interface GoogleCredentials {
  readonly mode: 'service_account' | 'ambient' | 'anonymous';
  readonly serviceAccount?: ServiceAccount;
}

export async function loadServiceAccount(value: string, ctx: DriverContext): Promise<ServiceAccount> {
  let text = value.trim();
  if (!text.startsWith('{')) {
    const path = await confinedFile(ctx.imports, text, 'credentials');
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

interface GaxiosLikeOptions {
  url?: string | URL;
}
type DefaultAdapter = (options: GaxiosLikeOptions) => Promise<unknown>;

export type SdkAuthOptions =
  { readonly credentials: Record<string, string> } | { readonly authClient: BearerHeaders };

export interface BearerHeaders {
  getRequestHeaders(url?: string): Promise<Record<string, string>>;
  readonly universeDomain: string;
}

interface SdkGoogleAuth {
  scopes?: string | string[];
  cachedCredential: unknown;
  fromJSON(json: Record<string, string>, options?: Record<string, unknown>): unknown;
}

/** A Google SDK session's way out: API requests via a guarded loopback proxy, the token grant via guarded agents. */
export interface GoogleEgress {
  readonly auth: SdkAuthOptions;
  /** Binds a guarded JWT client first: @google-cloud/common drops clientOptions, leaving the grant unguarded. */
  bindAuth(googleAuth: unknown, scope: string): void;
  withProxy<T extends object>(options: T): T;
  refusal(): Error | undefined;
  close(): Promise<void>;
}

async function tokenRequest(ctx: DriverContext, context: EgressContext, url: string): Promise<string> {
  let response: Response;
  try {
    response = await ctx.egress.fetch(
      url,
      { headers: { 'Metadata-Flavor': 'Google' }, signal: AbortSignal.timeout(30_000) },
      context,
    );
  } catch (error) {
    throw (
      classifyNetworkError(error, url) ??
      new ConnectorError('unreachable', `${url} cannot be reached: ${errorMessage(error)}`)
    );
  }
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new ConnectorError(
      response.status >= 500 ? 'remote_error' : 'auth_failed',
      `The metadata server gave no token: HTTP ${response.status}`,
    );
  }
  return body.access_token;
}

/** Ambient credentials come from the metadata server through the guard; the libraries' own discovery never runs. */
function bearerHeaders(fetchToken: (() => Promise<string>) | undefined): BearerHeaders {
  let token: Promise<string> | undefined;
  return {
    universeDomain: 'googleapis.com',
    async getRequestHeaders(): Promise<Record<string, string>> {
      if (!fetchToken) return {};
      token ??= fetchToken();
      return { Authorization: `Bearer ${await token}` };
    },
  };
}

function signerFields(account: ServiceAccount): Record<string, string> {
  // Only these fields: a JSON of another type (external_account...) could make the library run programs or fetch URLs.
  return {
    type: 'service_account',
    client_email: account.client_email,
    private_key: account.private_key,
    ...(account.private_key_id ? { private_key_id: account.private_key_id } : {}),
    ...(account.project_id ? { project_id: account.project_id } : {}),
  };
}

function guardedTransport(account: ServiceAccount, agent: (url: URL) => Agent): Record<string, unknown> {
  const tokenUri = account.token_uri;
  return {
    transporterOptions: {
      agent,
      retryConfig: { retry: 0, noResponseRetries: 0 },
      // The key's token_uri is honoured (private endpoints); the library would use its built-in URL.
      adapter: async (options: GaxiosLikeOptions, defaultAdapter: DefaultAdapter) => {
        if (!LIBRARY_TOKEN_URLS.has(String(options.url))) return defaultAdapter(options);
        const response = await defaultAdapter(tokenUri ? { ...options, url: tokenUri } : options);
        // The library would go on with "Bearer undefined" when a token endpoint answers 200 without a token.
        const { status, data } =
          (response as { status?: number; data?: { access_token?: unknown } } | undefined) ?? {};
        const ok = typeof status === 'number' && status >= 200 && status < 300;
        if (ok && (typeof data?.access_token !== 'string' || data.access_token === '')) {
          throw new ConnectorError('auth_failed', 'The token endpoint answered without an access token.');
        }
        return response;
      },
    },
  };
}

export async function openGoogleEgress(
  credentials: GoogleCredentials,
  ctx: DriverContext,
): Promise<GoogleEgress> {
  const context: EgressContext = { purpose: 'connector', orgId: ctx.orgId };
  const agents = guardedAgents(ctx.egress, context);
  const agent = (url: URL): Agent => (url.protocol === 'http:' ? agents.http : agents.https);
  const account = credentials.mode === 'service_account' ? credentials.serviceAccount : undefined;
  const bearer =
    credentials.mode === 'ambient'
      ? bearerHeaders(() => tokenRequest(ctx, context, METADATA_TOKEN_URL))
      : bearerHeaders(undefined);
  const proxy: GuardedProxy = await startGuardedProxy(ctx.egress, context);
  const proxyUrl = `http://${proxy.host}:${proxy.port}`;
  return {
    auth: account ? { credentials: signerFields(account) } : { authClient: bearer },
    bindAuth(googleAuth, scope) {
      const auth = googleAuth as SdkGoogleAuth;
      auth.scopes = [scope];
      auth.cachedCredential = account
        ? auth.fromJSON(signerFields(account), guardedTransport(account, agent))
        : bearer;
    },
    withProxy: (options) => ({ ...options, proxy: proxyUrl }),
    refusal: () => proxy.refusal ?? agents.refusal,
    close: async () => {
      agents.http.destroy();
      agents.https.destroy();
      await proxy.close();
    },
  };
}

export function classifyGoogleError(error: unknown, label: string, egress?: GoogleEgress): ConnectorError {
  const own = [error, (error as { cause?: unknown } | undefined)?.cause].find(
    (candidate) => candidate instanceof ConnectorError,
  );
  if (own) return own;
  const network = classifyNetworkError(egress?.refusal() ?? error, label);
  if (network) return network;
  const status = googleStatus(error);
  const message = errorMessage(error);
  if (status === 401 || status === 403 || /invalid_grant|invalid_client|unauthorized_client/.test(message))
    return new ConnectorError('auth_failed', `Access to ${label} was denied: ${message}`);
  if (status === 404) return new ConnectorError('not_found', `${label} was not found: ${message}`);
  if (status === 400) return new ConnectorError('invalid_config', `The request is invalid: ${message}`);
  if (/timeout|timed out/i.test(message)) return new ConnectorError('timeout', `${label}: ${message}`);
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

function googleStatus(error: unknown): number | undefined {
  const candidate = error as { code?: unknown; status?: unknown; response?: { status?: unknown } };
  for (const value of [candidate.response?.status, candidate.status, candidate.code]) {
    if (typeof value === 'number') return value;
  }
  return undefined;
}
