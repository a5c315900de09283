import { PassThrough } from 'node:stream';
import type { Storage, StorageOptions } from '@google-cloud/storage';
import { GcsConfig } from '../connector-config';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import {
  classifyGoogleError,
  GoogleCredentials,
  GoogleEgress,
  loadServiceAccount,
  openGoogleEgress,
} from './google-auth';
import { keyPrefix, objectStoreDriver } from './object-store';
import { loadOnFirstUse } from '../lazy-module';
import { defineConnector, RequestedType } from '../connector-descriptor';
import { httpUrl, ObjectParseFields, serviceAccountProblem, serviceAccountText } from '../connector-config';
import { ConfigBoolean, ConfigJson, ConfigString, storedFields } from '../config-fields';

const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_only';
const DEFAULT_ENDPOINT = 'https://storage.googleapis.com';
const REQUEST_TIMEOUT_MS = 120_000;

type ApiRequest = ReturnType<Storage['interceptors'][number]['request']>;
type StorageSdk = typeof import('@google-cloud/storage');

/** Loading it opens no connection. Node loads the package's ES build here, Jest its CommonJS build (same API). */
const loadSdk = loadOnFirstUse(() => import('@google-cloud/storage') as unknown as Promise<StorageSdk>);

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

interface Session {
  readonly storage: Storage;
  readonly egress: GoogleEgress;
}

async function openSession(config: GcsConfig, ctx: DriverContext): Promise<Session> {
  const credentials = await credentialsFor(config, ctx);
  const { Storage } = await loadSdk();
  const egress = await openGoogleEgress(credentials, ctx);
  try {
    const endpoint = (config.endpoint_url ?? DEFAULT_ENDPOINT).replace(/\/$/, '');
    const storage = new Storage({
      ...(egress.auth as StorageOptions),
      // Object requests need no project; naming one keeps the library from looking it up (environment, metadata).
      projectId: config.project_id ?? credentials.serviceAccount?.project_id ?? 'none',
      apiEndpoint: endpoint,
      useAuthWithCustomEndpoint: true,
      timeout: REQUEST_TIMEOUT_MS,
      retryOptions: { maxRetries: 1 },
    });
    // STORAGE_EMULATOR_HOST in the environment would replace the endpoint; the config decides.
    storage.baseUrl = `${endpoint}/storage/v1`;
    egress.bindAuth(storage.authClient, SCOPE);
    storage.interceptors.push({
      // The SDKs type the request as their input type; at run time it is the decorated request.
      request: (options) => egress.withProxy(options) as unknown as ApiRequest,
    });
    return { storage, egress };
  } catch (error) {
    await egress.close();
    throw error;
  }
}

const label = (config: GcsConfig): string => `gs://${config.bucket}/${config.blob}`;

export const gcsDriver = objectStoreDriver<GcsConfig>({
  label,
  objectName: (config) => config.blob,

  async download(config, ctx) {
    const { storage, egress } = await openSession(config, ctx);
    const body = storage.bucket(config.bucket).file(config.blob).createReadStream();
    const out = new PassThrough();
    // pipe() leaves errors to us: the reader sees the documented error type, not the SDK's.
    body.once('error', (error) => out.destroy(classifyGoogleError(error, label(config), egress)));
    out.once('close', () => {
      body.destroy();
      void egress.close();
    });
    return body.pipe(out);
  },

  async listSiblings(config, ctx): Promise<BrowseItem[]> {
    const { storage, egress } = await openSession(config, ctx);
    try {
      const [files] = await storage.bucket(config.bucket).getFiles({
        prefix: keyPrefix(config.blob),
        delimiter: '/',
        maxResults: 1000,
        autoPaginate: false,
      });
      return files.map((file) => ({
        name: file.name,
        kind: 'object',
        size: file.metadata.size === undefined ? undefined : Number(file.metadata.size),
      }));
    } catch (error) {
      throw classifyGoogleError(error, `gs://${config.bucket}/${keyPrefix(config.blob)}`, egress);
    } finally {
      await egress.close();
    }
  },
});

export class GcsConnectorConfig extends ObjectParseFields<GcsConfig> {
  @ConfigString({ checks: [httpUrl], description: 'A private endpoint or emulator instead of googleapis.' })
  endpoint_url?: string;

  @ConfigString({ required: true })
  bucket!: string;

  @ConfigString({ required: true, description: 'The object name; a prefix ending in / browses a folder.' })
  blob!: string;

  @ConfigJson({
    aliases: ['service_account_json'],
    // Not write-only: a path is shown as given; the JSON form is masked in every answer.
    checks: [serviceAccountProblem],
    read: serviceAccountText,
    schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }] },
    description:
      'A service-account key (JSON object or text), or the path of its file inside the import directory.',
  })
  credentials?: string;

  @ConfigString()
  project_id?: string;

  @ConfigBoolean({ default: false, description: 'Unsigned requests (public buckets).' })
  anonymous?: boolean;

  @ConfigBoolean({ default: false, description: "Use the appliance host's own Google credentials." })
  ambient_credentials?: boolean;

  toConfig(requested: RequestedType): GcsConfig {
    return { ...storedFields<GcsConfig>(this), ...this.parseOptions(requested) };
  }
}

export const gcsConnector = defineConnector({
  name: 'gcs',
  family: 'object_store',
  config: GcsConnectorConfig,
  destinationFields: ['endpoint_url'],
  driver: gcsDriver,
});
