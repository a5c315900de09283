import type { BindingStore } from './binding-store';
import { fetchTrusting, readCaFile } from './trusting-fetch';

export type FetchFunction = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Defaults to SERVICE_API_KEY, then the legacy SERVICE_TOKEN. */
  apiKey?: string;
  /** The service root (without /v1). Defaults to SERVICE_BASE_URL, then SERVICE_URL, then SERVICE_API_URL, then http://127.0.0.1:8080. */
  baseURL?: string;
  /** Pins the device id (16 to 64 printable characters). Defaults to SERVICE_DEVICE_ID, then SERVICE_DEVICE, then the derived per-machine id. */
  deviceId?: string;
  /** Milliseconds for one attempt, answer body included. Default 60000. */
  timeout?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** A fetch implementation; defaults to the global fetch. Used as given: it cannot be combined with `caFile`. */
  fetch?: FetchFunction;
  /**
   * A PEM file with the certificate (or the CA certificate) an https appliance is trusted by, for an appliance whose
   * certificate the system's CAs did not sign. Defaults to SERVICE_CA_FILE. Certificates are always verified.
   */
  caFile?: string;
  /** Where device binding tokens are kept; defaults to a 0600 file in the user's data directory. */
  bindingStore?: BindingStore;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

/** Environment variables in the order they are read; the first non-empty one wins. */
export const API_KEY_VARIABLES = ['SERVICE_API_KEY', 'SERVICE_TOKEN'] as const;
export const BASE_URL_VARIABLES = ['SERVICE_BASE_URL', 'SERVICE_URL', 'SERVICE_API_URL'] as const;
export const DEVICE_ID_VARIABLES = ['SERVICE_DEVICE_ID', 'SERVICE_DEVICE'] as const;
export const CA_FILE_VARIABLE = 'SERVICE_CA_FILE';

const DEVICE_ID = /^[\x21-\x7e]{16,64}$/;

export interface ResolvedOptions {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly deviceId: string | undefined;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly fetch: FetchFunction;
}

type Env = Readonly<Record<string, string | undefined>>;

function fromEnv(env: Env, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function checkBaseURL(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`DecisionService: the base URL from ${source} is not a URL: "${raw}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `DecisionService: the base URL from ${source} must be http or https, not "${url.protocol}".`,
    );
  }
  if (url.search || url.hash) {
    throw new TypeError(`DecisionService: the base URL from ${source} must not carry a query or fragment.`);
  }
  return url.href.replace(/\/+$/, '');
}

function checkCount(value: number, name: string, min: number): number {
  if (!Number.isFinite(value) || value < min) {
    throw new TypeError(
      `DecisionService: ${name} must be a number of at least ${min}, got ${String(value)}.`,
    );
  }
  return value;
}

/** The fetch that trusts the caFile option or SERVICE_CA_FILE; a fetch passed in is used as it is. */
function trustingFetchFor(options: ClientOptions, env: Env): FetchFunction | undefined {
  const explicit = nonEmpty(options.caFile);
  if (explicit !== undefined && options.fetch !== undefined) {
    throw new TypeError('DecisionService: pass either { fetch } or { caFile }, not both.');
  }
  if (explicit !== undefined) return fetchTrusting(readCaFile(explicit, 'the caFile option'));
  if (options.fetch !== undefined) return undefined;
  const fromVariable = nonEmpty(env[CA_FILE_VARIABLE]);
  if (fromVariable === undefined) return undefined;
  return fetchTrusting(readCaFile(fromVariable, CA_FILE_VARIABLE));
}

/** Constructor argument, then the environment variables in their documented order, then the defaults. */
export function resolveOptions(options: ClientOptions, env: Env): ResolvedOptions {
  const apiKey = nonEmpty(options.apiKey) ?? fromEnv(env, API_KEY_VARIABLES)?.value;
  if (!apiKey) {
    throw new TypeError(
      `DecisionService: no API key. Pass { apiKey } or set SERVICE_API_KEY (the legacy SERVICE_TOKEN is also read).`,
    );
  }
  const explicitURL = nonEmpty(options.baseURL);
  const envURL = fromEnv(env, BASE_URL_VARIABLES);
  const baseURL = explicitURL
    ? checkBaseURL(explicitURL, 'the baseURL option')
    : envURL
      ? checkBaseURL(envURL.value, envURL.name)
      : DEFAULT_BASE_URL;

  const explicitDevice = nonEmpty(options.deviceId);
  const envDevice = fromEnv(env, DEVICE_ID_VARIABLES);
  const deviceId = explicitDevice ?? envDevice?.value;
  if (deviceId !== undefined && !DEVICE_ID.test(deviceId)) {
    const source = explicitDevice ? 'the deviceId option' : (envDevice?.name ?? '');
    throw new TypeError(
      `DecisionService: the device id from ${source} must be 16 to 64 printable characters without spaces.`,
    );
  }
  const fetchFunction = trustingFetchFor(options, env) ?? options.fetch ?? globalThis.fetch;
  if (typeof fetchFunction !== 'function') {
    throw new TypeError(
      'DecisionService: no fetch implementation: pass { fetch } (Node 20 or later has one built in).',
    );
  }
  return {
    apiKey,
    baseURL,
    deviceId,
    timeout: checkCount(options.timeout ?? DEFAULT_TIMEOUT_MS, 'timeout', 1),
    maxRetries: Math.floor(checkCount(options.maxRetries ?? DEFAULT_MAX_RETRIES, 'maxRetries', 0)),
    fetch: fetchFunction,
  };
}
