/** One field problem of a 422 `validation_failed` answer. */
export interface FieldProblem {
  readonly field: string;
  readonly problem: string;
}

export interface APIErrorInit {
  readonly status: number | undefined;
  readonly code: string;
  readonly message: string;
  readonly requestId?: string;
  readonly details?: unknown;
  readonly headers?: Headers;
  readonly cause?: unknown;
}

/** Every error the client raises for a request: an error answer of the service or a failed connection. */
export class APIError extends Error {
  /** HTTP status; undefined when no answer arrived (connection errors). */
  readonly status: number | undefined;
  /** The service's snake_case error code, e.g. `invalid_api_key`, or `connection_error` / `connection_timeout`. */
  readonly code: string;
  /** X-Request-Id of the answer: quote it to the operator. */
  readonly requestId: string | undefined;
  /** The `details` of the error body, e.g. `[{field, problem}]` for validation errors. */
  readonly details: unknown;
  readonly headers: Headers | undefined;

  constructor(init: APIErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.headers = init.headers;
  }
}

/** 401: no key, or a key that is invalid, expired or revoked. */
export class AuthenticationError extends APIError {}
/** 403: the key's role, the license or the appliance does not allow the call. */
export class PermissionDeniedError extends APIError {}
/** 404 */
export class NotFoundError extends APIError {}
/** 409: the request conflicts with the resource's state (not retried, except `idempotency_key_in_use`). */
export class ConflictError extends APIError {}
/** 422: `details` lists `{field, problem}`. */
export class ValidationError extends APIError {
  declare readonly details: FieldProblem[] | undefined;
}
/** 429, raised after the retries are spent; `retryAfterSeconds` is the server's last `Retry-After`. */
export class RateLimitError extends APIError {
  get retryAfterSeconds(): number | undefined {
    return retryAfterSecondsOf(this.headers);
  }
}
/** 503: the engine (or another local dependency) cannot serve now, raised after the retries are spent. */
export class EngineUnavailableError extends APIError {
  get retryAfterSeconds(): number | undefined {
    return retryAfterSecondsOf(this.headers);
  }
}
/** A capped key's device binding failed (fails closed); never retried. */
export class DeviceBindingError extends APIError {}
/** No answer: the connection failed or closed before a complete answer arrived. */
export class APIConnectionError extends APIError {
  constructor(init: { message?: string; cause?: unknown; code?: string } = {}) {
    super({
      status: undefined,
      code: init.code ?? 'connection_error',
      message: init.message ?? 'The connection to the service failed.',
      cause: init.cause,
    });
  }
}
/** No complete answer within the request's timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  constructor(init: { message?: string; cause?: unknown } = {}) {
    super({
      code: 'connection_timeout',
      message: init.message ?? 'The request timed out.',
      cause: init.cause,
    });
  }
}

/** The error codes of device binding (spec: Device binding, Errors); they surface as DeviceBindingError. */
export const DEVICE_BINDING_CODES: ReadonlySet<string> = new Set([
  'device_binding_required',
  'device_binding_token_required',
  'invalid_device_binding_token',
  'device_identity_mismatch',
  'device_limit_reached',
  'invalid_device_id',
]);

const BY_STATUS: ReadonlyMap<number, typeof APIError> = new Map([
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [422, ValidationError],
  [429, RateLimitError],
  [503, EngineUnavailableError],
]);

/** The error class for an answer: the device-binding codes first, then the status family. */
export function errorClassFor(status: number, code: string): typeof APIError {
  if (DEVICE_BINDING_CODES.has(code)) return DeviceBindingError;
  return BY_STATUS.get(status) ?? APIError;
}

/** Seconds of a Retry-After header (delta seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSecondsOf(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}
