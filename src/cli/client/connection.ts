import { cliConfigPath, readCliSettings } from './cli-config';
import { CredentialStore } from './credential-store';
import { CliFailure, ExitCode } from './exit-codes';
import { checkKeyShape } from './key-input';
import { API_KEY_VARIABLES, BASE_URL_VARIABLES, DEFAULT_BASE_URL, DecisionService } from './sdk';
import { sdkTransport } from './transport-trust';

export type KeySource = 'environment' | 'credential store';

export interface Connection {
  readonly baseURL: string;
  readonly baseURLSource: string;
  readonly apiKey: string;
  readonly keySource: KeySource;
}

function firstSet(names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = process.env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

export function resolveBaseURL(): { baseURL: string; source: string } {
  const fromEnv = firstSet(BASE_URL_VARIABLES);
  if (fromEnv) return { baseURL: normalizeBaseURL(fromEnv.value, fromEnv.name), source: fromEnv.name };
  const configured = readCliSettings().base_url;
  if (configured) return { baseURL: normalizeBaseURL(configured, cliConfigPath()), source: cliConfigPath() };
  return { baseURL: DEFAULT_BASE_URL, source: 'the default' };
}

/** The SDK's own check (http or https, no query): a bad URL fails here with exit 78, before any key is read. */
export function normalizeBaseURL(raw: string, source: string): string {
  try {
    return new DecisionService({ apiKey: 'unused', baseURL: raw, fetch: globalThis.fetch }).baseURL;
  } catch (error) {
    throw new CliFailure(
      `the base URL from ${source} is not usable: ${(error as Error).message}`,
      ExitCode.configuration,
    );
  }
}

export function keyFromEnvironment(): { name: string; value: string } | undefined {
  return firstSet(API_KEY_VARIABLES);
}

/** SERVICE_API_KEY (or its legacy name) first, otherwise the credential store; never a file. */
export async function resolveConnection(store = new CredentialStore()): Promise<Connection> {
  const { baseURL, source: baseURLSource } = resolveBaseURL();
  const fromEnv = keyFromEnvironment();
  if (fromEnv) {
    return {
      baseURL,
      baseURLSource,
      apiKey: checkKeyShape(fromEnv.value, fromEnv.name, ExitCode.configuration),
      keySource: 'environment',
    };
  }
  const stored = await store.get(baseURL);
  if (stored === undefined) {
    throw new CliFailure(
      `no API key for ${baseURL}: set SERVICE_API_KEY, or store one with \`decisionctl login\` or ` +
        '`decisionctl config set-key`',
      ExitCode.authentication,
    );
  }
  return { baseURL, baseURLSource, apiKey: stored, keySource: 'credential store' };
}

export async function connect(): Promise<{ client: DecisionService; connection: Connection }> {
  const connection = await resolveConnection();
  return {
    client: new DecisionService({
      apiKey: connection.apiKey,
      baseURL: connection.baseURL,
      ...sdkTransport(),
    }),
    connection,
  };
}
