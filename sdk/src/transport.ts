import { createHash, randomUUID } from 'node:crypto';
import { arch, platform } from 'node:os';
import type { BindingStore } from './binding-store';
import { deviceHeaders, deviceIdentity, readMachineId, type DeviceIdentity } from './device';
import { APIConnectionError, APIConnectionTimeoutError, APIError, errorClassFor } from './errors';
import type { ResolvedOptions } from './options';
import { isRetryable, retryDelayMs, sleep } from './retry';
import { SDK_VERSION } from './version';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type QueryValue = string | number | boolean | undefined | null;

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** Milliseconds for each attempt; overrides the client's timeout. */
  timeout?: number;
  /** Overrides the client's maxRetries. */
  maxRetries?: number;
  /** Aborts the call (no retry follows). */
  signal?: AbortSignal;
  /** For POST: the Idempotency-Key to send; by default one is generated per call and kept across its retries. */
  idempotencyKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface RequestSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly options?: RequestOptions;
}

const BINDING_TOKEN_HEADER = 'x-service-device-binding-token';

/** Sends requests: headers, device binding, timeouts, retries with backoff, and typed errors. */
export class Transport {
  private identity: DeviceIdentity | undefined;
  private token: string | undefined;
  private tokenLoad: Promise<void> | undefined;
  /** Set once an answer came back: from then on a missing token means the key needs none. */
  private bindingSettled = false;
  /** While the first request of an unbound device is out, others wait, so only one binds. */
  private bindingGate: Promise<void> | undefined;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly store: BindingStore,
  ) {}

  get baseURL(): string {
    return this.options.baseURL;
  }

  /** The device this client speaks for (derived once per client). */
  device(): DeviceIdentity {
    this.identity ??= deviceIdentity(readMachineId(), this.options.deviceId);
    return this.identity;
  }

  /** The binding store's key: base URL, a fingerprint of the key (never the key) and the device id. */
  bindingKey(): string {
    const keyId = createHash('sha256').update(this.options.apiKey).digest('hex').slice(0, 16);
    return `${this.options.baseURL}|key:${keyId}|device:${this.device().deviceId}`;
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const idempotencyKey =
      spec.method === 'POST' ? (spec.options?.idempotencyKey ?? randomUUID()) : undefined;
    const maxRetries = spec.options?.maxRetries ?? this.options.maxRetries;
    for (let retry = 0; ; retry++) {
      try {
        return await this.withBinding(() => this.attempt<T>(spec, idempotencyKey));
      } catch (error) {
        if (spec.options?.signal?.aborted || retry >= maxRetries || !isRetryable(error)) throw error;
        const delay = retryDelayMs(retry, error);
        if (delay === undefined) throw error;
        await sleep(delay, spec.options?.signal);
      }
    }
  }

  private async withBinding<T>(send: () => Promise<T>): Promise<T> {
    this.tokenLoad ??= Promise.resolve(this.store.get(this.bindingKey())).then((stored) => {
      this.token ??= stored;
    });
    await this.tokenLoad;
    // No await between this check and taking the gate: two first requests must not both bind.
    while (!this.bindingSettled && this.token === undefined && this.bindingGate) await this.bindingGate;
    if (this.bindingSettled || this.token !== undefined) return send();
    let open = (): void => undefined;
    this.bindingGate = new Promise<void>((resolve) => (open = resolve));
    try {
      return await send();
    } finally {
      this.bindingGate = undefined;
      open();
    }
  }

  private async attempt<T>(spec: RequestSpec, idempotencyKey: string | undefined): Promise<T> {
    const timeoutMs = spec.options?.timeout ?? this.options.timeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const signal = spec.options?.signal
      ? AbortSignal.any([spec.options.signal, controller.signal])
      : controller.signal;
    try {
      const response = await this.options.fetch(this.url(spec), {
        method: spec.method,
        headers: this.headers(spec, idempotencyKey),
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal,
      });
      this.bindingSettled = true;
      await this.keepBindingToken(response.headers);
      const text = await response.text();
      if (!response.ok) throw errorFromAnswer(response, text);
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (error) {
      if (error instanceof APIError) throw error;
      if (spec.options?.signal?.aborted) throw error;
      if (controller.signal.aborted) {
        throw new APIConnectionTimeoutError({
          message: `${spec.method} ${spec.path}: no complete answer within ${timeoutMs} ms.`,
          cause: error,
        });
      }
      if (error instanceof SyntaxError) {
        throw new APIConnectionError({
          message: `${spec.method} ${spec.path}: the answer is not JSON.`,
          cause: error,
        });
      }
      throw new APIConnectionError({
        message: `${spec.method} ${spec.path}: the connection to ${this.options.baseURL} failed (${describe(error)}).`,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private url(spec: RequestSpec): string {
    const url = new URL(`${this.options.baseURL}${spec.path}`);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  private headers(spec: RequestSpec, idempotencyKey: string | undefined): Record<string, string> {
    return {
      Accept: 'application/json',
      'User-Agent': `decision-service-sdk/${SDK_VERSION} node/${process.versions.node} ${platform()}-${arch()}`,
      ...(spec.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...deviceHeaders(this.device()),
      ...(this.token ? { 'X-Service-Device-Binding-Token': this.token } : {}),
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      ...spec.options?.headers,
      Authorization: `Bearer ${this.options.apiKey}`,
      'X-Service-SDK-Version': SDK_VERSION,
    };
  }

  private async keepBindingToken(headers: Headers): Promise<void> {
    const token = headers.get(BINDING_TOKEN_HEADER)?.trim();
    if (!token || token === this.token) return;
    this.token = token;
    await this.store.set(this.bindingKey(), token);
  }
}

/** Node's codes for a certificate that did not verify (an unknown CA, a self-signed one, a wrong name, expiry). */
const CERTIFICATE_REFUSED = /CERT|SIGNATURE|SELF_SIGNED/;

function describe(error: unknown): string {
  // Duck-typed: an error from another realm (a test runner's sandbox) is no instance of this realm's Error.
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CERTIFICATE_REFUSED.test(code)) {
    return `the appliance's TLS certificate is not trusted: ${code}; trust it with the caFile option or SERVICE_CA_FILE`;
  }
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

function errorFromAnswer(response: Response, text: string): APIError {
  let body: ErrorBody = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not the service's error body (a proxy's page, say): the status speaks alone.
  }
  const error = body.error ?? {};
  const code = typeof error.code === 'string' ? error.code : `http_${response.status}`;
  const message =
    typeof error.message === 'string'
      ? error.message
      : `HTTP ${response.status} ${response.statusText}`.trim();
  const requestId =
    typeof error.request_id === 'string'
      ? error.request_id
      : (response.headers.get('x-request-id') ?? undefined);
  const ErrorClass = errorClassFor(response.status, code);
  return new ErrorClass({
    status: response.status,
    code,
    message,
    requestId,
    details: error.details,
    headers: response.headers,
  });
}
