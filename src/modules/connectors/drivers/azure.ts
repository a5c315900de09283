import { Readable } from 'node:stream';
import { AzureConfig } from '../connector-config';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { GuardedAgents, guardedAgents } from '../guarded-http-agent';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { keyPrefix, objectStoreDriver } from './object-store';
import { defineConnector, RequestedType } from '../connector-descriptor';
import { httpUrl, ObjectParseFields } from '../connector-config';
import { ConfigBoolean, ConfigString, FieldCheck, storedFields } from '../config-fields';

/** The storage emulator's published development account (UseDevelopmentStorage=true). */
const DEVELOPMENT_ACCOUNT = {
  name: 'devstoreaccount1',
  key: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
  endpoint: 'http://127.0.0.1:10000/devstoreaccount1',
};

const loadSdk = loadOnFirstUse(() =>
  Promise.all([import('@azure/storage-blob'), import('@azure/core-rest-pipeline')]),
);
// The types of what import() loads (the packages' ESM declarations, which a type-only import would not pick).
type AzureSdk = Awaited<ReturnType<typeof loadSdk>>;
type BlobServiceClient = InstanceType<AzureSdk[0]['BlobServiceClient']>;
type Pipeline = InstanceType<AzureSdk[0]['Pipeline']>;
type HttpClient = ReturnType<AzureSdk[1]['createDefaultHttpClient']>;

/** An account key signs every request; without one, requests go unsigned (public blobs, or a SAS in the URL). */
interface SharedKey {
  readonly account: string;
  readonly key: string;
}

interface Target {
  readonly serviceUrl: string;
  readonly container: string;
  readonly blob: string;
  readonly sharedKey?: SharedKey;
  readonly sas?: string;
}

export function parseConnectionString(text: string): {
  serviceUrl: string;
  sharedKey?: SharedKey;
  sas?: string;
} {
  const parts = new Map<string, string>();
  for (const item of text.split(';')) {
    const at = item.indexOf('=');
    if (at > 0) parts.set(item.slice(0, at).trim().toLowerCase(), item.slice(at + 1).trim());
  }
  if (parts.get('usedevelopmentstorage') === 'true') {
    return {
      serviceUrl: DEVELOPMENT_ACCOUNT.endpoint,
      sharedKey: { account: DEVELOPMENT_ACCOUNT.name, key: DEVELOPMENT_ACCOUNT.key },
    };
  }
  const account = parts.get('accountname');
  const protocol = parts.get('defaultendpointsprotocol') ?? 'https';
  const suffix = parts.get('endpointsuffix') ?? 'core.windows.net';
  const serviceUrl =
    parts.get('blobendpoint') ?? (account ? `${protocol}://${account}.blob.${suffix}` : undefined);
  if (!serviceUrl)
    throw new ConnectorError(
      'invalid_config',
      'connection_string names neither AccountName nor BlobEndpoint.',
    );
  const key = parts.get('accountkey');
  const sas = parts.get('sharedaccesssignature');
  if (key && account) return { serviceUrl, sharedKey: { account, key } };
  if (sas) return { serviceUrl, sas: sas.replace(/^\?/, '') };
  throw new ConnectorError(
    'invalid_config',
    'connection_string needs AccountName with AccountKey, or SharedAccessSignature.',
  );
}

function target(config: AzureConfig): Target {
  if (config.blob_url) {
    const url = new URL(config.blob_url);
    const segments = url.pathname.split('/').filter((s) => s !== '');
    // Emulator URLs carry the account as the first path segment (http://127.0.0.1:10000/devstoreaccount1/c/b).
    const accountInPath = /^(\d+\.){3}\d+$|^localhost$/.test(url.hostname) ? 1 : 0;
    const [container, ...blob] = segments.slice(accountInPath).map(decodeURIComponent);
    if (!container || blob.length === 0)
      throw new ConnectorError('invalid_config', 'blob_url must name a container and a blob.');
    const account = accountInPath ? `/${segments[0]}` : '';
    return {
      serviceUrl: `${url.protocol}//${url.host}${account}`,
      container,
      blob: blob.join('/'),
      sas: url.search.replace(/^\?/, '') || undefined,
    };
  }
  const container = config.container ?? '';
  const blob = config.blob ?? '';
  if (config.connection_string)
    return { ...parseConnectionString(config.connection_string), container, blob };
  const url = new URL(config.account_url ?? '');
  return {
    serviceUrl: `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`,
    container,
    blob,
    sas: url.search.replace(/^\?/, '') || undefined,
  };
}

/** A pipeline whose every socket goes through the egress guard (the SDK's Node client honours request.agent). */
async function guardedPipeline(t: Target, agents: GuardedAgents): Promise<Pipeline> {
  const [{ AnonymousCredential, newPipeline, StorageSharedKeyCredential }, { createDefaultHttpClient }] =
    await loadSdk();
  const credential = t.sharedKey
    ? new StorageSharedKeyCredential(t.sharedKey.account, t.sharedKey.key)
    : new AnonymousCredential();
  const pipeline = newPipeline(credential, { retryOptions: { maxTries: 2, tryTimeoutInMs: 60_000 } });
  const base = createDefaultHttpClient();
  const client: HttpClient = {
    sendRequest: (request) => {
      request.agent = request.url.startsWith('https:') ? agents.https : agents.http;
      return base.sendRequest(request);
    },
  };
  (pipeline as unknown as { _coreHttpClient: HttpClient })._coreHttpClient = client;
  return pipeline;
}

async function service(
  t: Target,
  ctx: DriverContext,
): Promise<{ client: BlobServiceClient; agents: GuardedAgents }> {
  const agents = guardedAgents(ctx.egress, { purpose: 'object_store', orgId: ctx.orgId });
  const [{ BlobServiceClient }] = await loadSdk();
  const client = new BlobServiceClient(
    t.sas ? `${t.serviceUrl}?${t.sas}` : t.serviceUrl,
    await guardedPipeline(t, agents),
  );
  return { client, agents };
}

export function classifyAzureError(error: unknown, label: string, agents?: GuardedAgents): ConnectorError {
  const network = classifyNetworkError(agents?.refusal ?? error, label);
  if (network) return network;
  const status = (error as { statusCode?: number }).statusCode;
  const rawCode = (error as { code?: unknown }).code;
  const code = typeof rawCode === 'string' ? rawCode : '';
  const message = errorMessage(error).split('\n')[0];
  if (status === 404 || /NotFound/.test(code))
    return new ConnectorError('not_found', `${label} was not found: ${message}`);
  if (status === 401 || status === 403 || /Authentication|Authorization/.test(code)) {
    return new ConnectorError('auth_failed', `Access to ${label} was denied: ${message}`);
  }
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

const label = (config: AzureConfig): string => {
  try {
    const t = target(config);
    return `azure://${t.container}/${t.blob}`;
  } catch {
    return 'the Azure blob';
  }
};

export const azureDriver = objectStoreDriver<AzureConfig>({
  label,
  objectName: (config) => target(config).blob,

  async download(config, ctx) {
    const t = target(config);
    const { client, agents } = await service(t, ctx);
    try {
      const response = await client.getContainerClient(t.container).getBlobClient(t.blob).download();
      if (!response.readableStreamBody)
        throw new ConnectorError('remote_error', `${label(config)} returned no body.`);
      return response.readableStreamBody as Readable;
    } catch (error) {
      throw classifyAzureError(error, label(config), agents);
    }
  },

  async listSiblings(config, ctx): Promise<BrowseItem[]> {
    const t = target(config);
    const items: BrowseItem[] = [];
    const { client, agents } = await service(t, ctx);
    try {
      const container = client.getContainerClient(t.container);
      for await (const blob of container.listBlobsFlat({ prefix: keyPrefix(t.blob) })) {
        items.push({ name: blob.name, kind: 'object', size: blob.properties.contentLength });
        if (items.length >= 1000) break;
      }
    } catch (error) {
      // Anonymous or SAS access to one blob often may not list its container: the object itself still browses.
      const failure = classifyAzureError(error, label(config), agents);
      if (failure.errorType !== 'auth_failed') throw failure;
    }
    return items;
  },
});

const given = (value: unknown): value is string => typeof value === 'string';

const namesObject: FieldCheck<AzureConnectorConfig> = (value, config) =>
  !given(config.blob_url) && (given(config.account_url) || given(config.connection_string)) && !value
    ? 'is required with account_url or connection_string'
    : undefined;

export class AzureConnectorConfig extends ObjectParseFields<AzureConfig> {
  @ConfigString({
    description: 'An Azure Storage connection string (AccountKey or SAS); with container and blob.',
  })
  connection_string?: string;

  @ConfigString<AzureConnectorConfig>({
    checks: [(value, config) => (given(config.blob_url) ? undefined : httpUrl(value, config))],
    description: 'https://<account>.blob.core.windows.net; with container and blob.',
  })
  account_url?: string;

  @ConfigString<AzureConnectorConfig>({
    checks: [
      httpUrl,
      (value, config) =>
        value === undefined && !given(config.account_url) && !given(config.connection_string)
          ? 'provide blob_url, or account_url + container + blob, or connection_string + container + blob'
          : undefined,
    ],
    description: "The blob's full URL (a SAS URL or a public blob); read anonymously.",
  })
  blob_url?: string;

  @ConfigString<AzureConnectorConfig>({ checks: [namesObject] })
  container?: string;

  @ConfigString<AzureConnectorConfig>({ checks: [namesObject] })
  blob?: string;

  @ConfigBoolean({ default: false })
  anonymous?: boolean;

  toConfig(requested: RequestedType): AzureConfig {
    const config = { ...storedFields<AzureConfig>(this), ...this.parseOptions(requested) };
    return config.blob_url !== undefined ? { ...config, anonymous: true } : config;
  }
}

export const azureConnector = defineConnector({
  name: 'azure',
  family: 'object_store',
  provider: 'azure_blob',
  config: AzureConnectorConfig,
  destinationFields: ['connection_string', 'account_url', 'blob_url'],
  driver: azureDriver,
});
