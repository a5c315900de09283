import { EgressContext } from '../../egress/egress.types';
import { DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { classifyNetworkError, errorMessage } from '../network-errors';

export const INSTANCE_METADATA_URL = 'http://169.254.169.254';
const ROLE_PATH = '/latest/meta-data/iam/security-credentials/';
const TIMEOUT_MS = 10_000;

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/**
 * The host's instance-profile credentials, asked for by us through the egress guard (IMDSv2, then v1 where the
 * token call is not offered). The SDK's own chain (environment, profile files, SSO, credential_process, web
 * identity, ECS and EC2 metadata over its own sockets) never runs.
 */
export async function instanceCredentials(ctx: DriverContext): Promise<AwsCredentials> {
  const context: EgressContext = { purpose: 'object_store', orgId: ctx.orgId };
  const token = await metadataRequest(ctx, context, '/latest/api/token', {
    method: 'PUT',
    headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '300' },
  });
  const headers: Record<string, string> =
    token.status === 200 ? { 'x-aws-ec2-metadata-token': token.body.trim() } : {};
  if (token.status !== 200 && ![403, 404, 405].includes(token.status)) throw noRole(token.status);
  const roles = await metadataRequest(ctx, context, ROLE_PATH, { headers });
  const role = roles.body.split('\n')[0]?.trim();
  if (roles.status !== 200 || !role) throw noRole(roles.status);
  const answer = await metadataRequest(ctx, context, `${ROLE_PATH}${encodeURIComponent(role)}`, { headers });
  const body = parseJson(answer.body);
  if (
    answer.status !== 200 ||
    typeof body.AccessKeyId !== 'string' ||
    typeof body.SecretAccessKey !== 'string'
  )
    throw noRole(answer.status);
  return {
    accessKeyId: body.AccessKeyId,
    secretAccessKey: body.SecretAccessKey,
    sessionToken: typeof body.Token === 'string' ? body.Token : undefined,
  };
}

async function metadataRequest(
  ctx: DriverContext,
  context: EgressContext,
  path: string,
  init: RequestInit,
): Promise<{ status: number; body: string }> {
  try {
    const response = await ctx.egress.fetch(
      `${INSTANCE_METADATA_URL}${path}`,
      { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) },
      context,
    );
    return { status: response.status, body: await response.text() };
  } catch (error) {
    throw (
      classifyNetworkError(error, 'the instance metadata service') ??
      new ConnectorError(
        'unreachable',
        `The instance metadata service cannot be reached: ${errorMessage(error)}`,
      )
    );
  }
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function noRole(status: number): ConnectorError {
  return new ConnectorError(
    status >= 500 ? 'remote_error' : 'auth_failed',
    `The instance metadata service gave no role credentials (HTTP ${status}).`,
  );
}
