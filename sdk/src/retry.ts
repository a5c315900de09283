import { APIConnectionError, APIError, DeviceBindingError, retryAfterSecondsOf } from './errors';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A longer Retry-After is not waited out: the error is raised at once and carries the header. */
export const MAX_RETRY_AFTER_S = 60;

/** Connection errors, 408, 429, 5xx and the in-flight idempotency conflict; never device binding or other 4xx. */
export function isRetryable(error: unknown): error is APIError {
  if (error instanceof DeviceBindingError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  const { status } = error;
  return (
    status === 408 ||
    status === 429 ||
    status >= 500 ||
    (status === 409 && error.code === 'idempotency_key_in_use')
  );
}

/**
 * Milliseconds before retry number `retry` (0 for the first): the server's Retry-After when it gives one, else
 * exponential backoff from 0.5 s, capped at 8 s, less up to a quarter of jitter. Undefined: do not retry.
 */
export function retryDelayMs(
  retry: number,
  error: APIError,
  random: () => number = Math.random,
): number | undefined {
  const retryAfter = retryAfterSecondsOf(error.headers);
  if (retryAfter !== undefined)
    return retryAfter <= MAX_RETRY_AFTER_S ? Math.ceil(retryAfter * 1000) : undefined;
  const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.round(backoff * (1 - 0.25 * random()));
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
