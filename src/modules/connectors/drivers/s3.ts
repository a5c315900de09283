import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { S3Config } from '../connector-config';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { GuardedAgents, guardedAgents } from '../guarded-http-agent';
import { loadOnFirstUse } from '../lazy-module';
import { classifyNetworkError, errorMessage } from '../network-errors';
import { instanceCredentials } from './aws-instance-credentials';
import { keyPrefix, objectStoreDriver } from './object-store';
import { defineConnector, RequestedType } from '../connector-descriptor';
import { httpUrl, ObjectParseFields } from '../connector-config';
import { ConfigBoolean, ConfigString, storedFields } from '../config-fields';

const REQUEST_TIMEOUT_MS = 60_000;
const loadS3 = loadOnFirstUse(async () => (await import('@aws-sdk/client-s3')).default);

export function classifyS3Error(error: unknown, label: string, agents?: GuardedAgents): ConnectorError {
  // The SDK can replace a refused socket's error with its own (or with a credentials error); the guard knows.
  const network = classifyNetworkError(agents?.refusal ?? error, label);
  if (network) return network;
  const name = (error as { name?: unknown }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const message = errorMessage(error);
  if (name === 'NoSuchKey' || name === 'NoSuchBucket' || name === 'NotFound' || status === 404) {
    return new ConnectorError('not_found', `${label} was not found: ${message}`);
  }
  if (
    [
      'AccessDenied',
      'InvalidAccessKeyId',
      'SignatureDoesNotMatch',
      'Forbidden',
      'ExpiredToken',
      'InvalidToken',
    ].includes(String(name)) ||
    status === 401 ||
    status === 403
  ) {
    return new ConnectorError('auth_failed', `Access to ${label} was denied: ${message}`);
  }
  if (name === 'CredentialsProviderError')
    return new ConnectorError('auth_failed', `No usable credentials: ${message}`);
  if (name === 'TimeoutError' || name === 'RequestTimeout')
    return new ConnectorError('timeout', `${label}: ${message}`);
  return new ConnectorError('remote_error', `${label} failed: ${message}`);
}

const NO_AMBIENT_CHAIN = (): (() => Promise<never>) => () =>
  Promise.reject(new ConnectorError('invalid_config', 'The AWS SDK asked for ambient credentials.'));

/**
 * Explicit credentials in every mode (static keys, anonymous, or the instance role fetched through the guard), so the
 * SDK's default chain, which reaches instance metadata over its own sockets, never runs.
 */
async function credentialsFor(
  config: S3Config,
  ctx: DriverContext,
): Promise<Pick<S3ClientConfig, 'credentials' | 'signer'>> {
  if (config.anonymous) {
    return {
      credentials: { accessKeyId: '', secretAccessKey: '' },
      signer: { sign: (request) => Promise.resolve(request) },
    };
  }
  if (config.aws_access_key_id && config.aws_secret_access_key) {
    return {
      credentials: {
        accessKeyId: config.aws_access_key_id,
        secretAccessKey: config.aws_secret_access_key,
        sessionToken: config.aws_session_token,
      },
    };
  }
  if (config.aws_access_key_id || config.aws_secret_access_key) {
    throw new ConnectorError(
      'invalid_config',
      'aws_access_key_id and aws_secret_access_key must be given together.',
    );
  }
  if (!config.ambient_credentials) {
    throw new ConnectorError(
      'invalid_config',
      'No credentials: give aws_access_key_id and aws_secret_access_key, or anonymous: true, or ambient_credentials: true to use the host role.',
    );
  }
  return { credentials: await instanceCredentials(ctx) };
}

interface Session {
  readonly client: S3Client;
  readonly agents: GuardedAgents;
}

async function openSession(config: S3Config, ctx: DriverContext): Promise<Session> {
  const agents = guardedAgents(ctx.egress, { purpose: 'object_store', orgId: ctx.orgId });
  try {
    const { S3Client } = await loadS3();
    const client = new S3Client({
      region: config.region,
      endpoint: config.endpoint_url,
      forcePathStyle: config.endpoint_url !== undefined,
      requestHandler: {
        httpAgent: agents.http,
        httpsAgent: agents.https,
        requestTimeout: REQUEST_TIMEOUT_MS,
        connectionTimeout: 10_000,
      },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      // Every setting the SDK would otherwise look up in the environment or profile files is fixed here:
      // "auto" defaults mode asks the instance metadata service for the region over an unguarded socket.
      defaultsMode: 'standard',
      ignoreConfiguredEndpointUrls: true,
      useFipsEndpoint: false,
      useDualstackEndpoint: false,
      useArnRegion: false,
      disableS3ExpressSessionAuth: true,
      credentialDefaultProvider: NO_AMBIENT_CHAIN,
      ...(await credentialsFor(config, ctx)),
    });
    return { client, agents };
  } catch (error) {
    agents.http.destroy();
    agents.https.destroy();
    throw classifyS3Error(error, label(config), agents);
  }
}

const label = (config: S3Config): string => `s3://${config.bucket}/${config.key}`;

export const s3Driver = objectStoreDriver<S3Config>({
  label,
  objectName: (config) => config.key,

  async download(config, ctx) {
    const { client, agents } = await openSession(config, ctx);
    try {
      const { GetObjectCommand } = await loadS3();
      const response = await client.send(new GetObjectCommand({ Bucket: config.bucket, Key: config.key }));
      if (!(response.Body instanceof Readable))
        throw new ConnectorError('remote_error', `${label(config)} returned no body.`);
      const body = response.Body;
      body.once('close', () => client.destroy());
      return body;
    } catch (error) {
      client.destroy();
      throw classifyS3Error(error, label(config), agents);
    }
  },

  async listSiblings(config, ctx): Promise<BrowseItem[]> {
    const { client, agents } = await openSession(config, ctx);
    try {
      const { ListObjectsV2Command } = await loadS3();
      const listed = await client.send(
        new ListObjectsV2Command({
          Bucket: config.bucket,
          Prefix: keyPrefix(config.key),
          Delimiter: '/',
          MaxKeys: 1000,
        }),
      );
      return (listed.Contents ?? []).map((object) => ({
        name: object.Key ?? '',
        kind: 'object',
        size: object.Size,
      }));
    } catch (error) {
      throw classifyS3Error(error, `s3://${config.bucket}/${keyPrefix(config.key)}`, agents);
    } finally {
      client.destroy();
    }
  },
});

export class S3ConnectorConfig extends ObjectParseFields<S3Config> {
  @ConfigString({ required: true })
  bucket!: string;

  @ConfigString({ required: true, description: 'The object key; a prefix ending in / browses a folder.' })
  key!: string;

  @ConfigString({ default: 'us-east-1' })
  region?: string;

  @ConfigString({ aliases: ['access_key_id'] })
  aws_access_key_id?: string;

  @ConfigString({ aliases: ['secret_access_key'], secret: true })
  aws_secret_access_key?: string;

  @ConfigString({ aliases: ['session_token'], secret: true })
  aws_session_token?: string;

  @ConfigString({
    aliases: ['endpoint'],
    checks: [httpUrl],
    description: 'An S3-compatible endpoint (MinIO...).',
  })
  endpoint_url?: string;

  @ConfigBoolean({ default: false, description: 'Unsigned requests (public buckets).' })
  anonymous?: boolean;

  @ConfigBoolean({ default: false, description: "Use the appliance host's own AWS credentials." })
  ambient_credentials?: boolean;

  toConfig(requested: RequestedType): S3Config {
    return { ...storedFields<S3Config>(this), ...this.parseOptions(requested) };
  }
}

export const s3Connector = defineConnector({
  name: 's3',
  family: 'object_store',
  config: S3ConnectorConfig,
  destinationFields: ['endpoint_url'],
  driver: s3Driver,
});
