import { Readable } from 'node:stream';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import { GcsConfig } from '../connector-config';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { accessToken, GoogleCredentials, googleFetch, loadServiceAccount } from './google-auth';
import { keyPrefix, objectStoreDriver } from './object-store';

const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_only';
const DEFAULT_ENDPOINT = 'https://storage.googleapis.com';

async function credentialsFor(config: GcsConfig, ctx: DriverContext): Promise<GoogleCredentials> {
  if (config.anonymous) return { mode: 'anonymous' };
  if (config.credentials)
    return { mode: 'service_account', serviceAccount: await loadServiceAccount(config.credentials, ctx) };
  if (config.ambient_credentials) return { mode: 'ambient' };
  throw new ConnectorError(
    'invalid_config',
    'No credentials: give credentials (service-account JSON or a file in the import dir), or anonymous: true, or ambient_credentials: true.',
  );
}

function objectsUrl(config: GcsConfig): string {
  return `${(config.endpoint_url ?? DEFAULT_ENDPOINT).replace(/\/$/, '')}/storage/v1/b/${encodeURIComponent(config.bucket)}/o`;
}

const label = (config: GcsConfig): string => `gs://${config.bucket}/${config.blob}`;

/** GCS through its JSON API, every request (token grant included) through the egress guard. */
export const gcsDriver = objectStoreDriver<GcsConfig>({
  label,
  objectName: (config) => config.blob,

  async download(config, ctx) {
    const token = await accessToken(await credentialsFor(config, ctx), SCOPE, ctx);
    const response = await googleFetch(
      ctx,
      `${objectsUrl(config)}/${encodeURIComponent(config.blob)}?alt=media`,
      token,
    );
    if (!response.body) throw new ConnectorError('remote_error', `${label(config)} returned no body.`);
    return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  },

  async listSiblings(config, ctx): Promise<BrowseItem[]> {
    const token = await accessToken(await credentialsFor(config, ctx), SCOPE, ctx);
    const url = `${objectsUrl(config)}?prefix=${encodeURIComponent(keyPrefix(config.blob))}&delimiter=%2F&maxResults=1000`;
    const listed = (await (await googleFetch(ctx, url, token)).json()) as {
      items?: { name: string; size?: string }[];
    };
    return (listed.items ?? []).map((item) => ({
      name: item.name,
      kind: 'object',
      size: item.size ? Number(item.size) : undefined,
    }));
  },
});
