import { EgressBlockedError } from '../egress/egress.types';
import { ConnectorError } from './connector-error';

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT',
  'ESOCKET',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'ETIMEOUT',
]);

export function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 6; depth += 1) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

export function errorCode(error: unknown): string | undefined {
  for (const item of errorChain(error)) {
    const code = (item as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function errorMessage(error: unknown): string {
  const messages = errorChain(error)
    .map((item) => (item instanceof Error ? item.message : typeof item === 'string' ? item : ''))
    .filter((m) => m !== '' && m !== 'fetch failed');
  return messages[0] ?? 'unknown error';
}

/**
 * The error types every network driver shares: a policy refusal, a timeout, or a destination that cannot be
 * reached. Returns undefined for errors a driver must classify itself (authentication, missing objects...).
 */
export function classifyNetworkError(error: unknown, destination: string): ConnectorError | undefined {
  if (error instanceof ConnectorError) return error;
  for (const item of errorChain(error)) {
    if (item instanceof EgressBlockedError || (item as Error | undefined)?.name === 'EgressBlockedError') {
      const blocked = item as EgressBlockedError;
      return new ConnectorError(
        'egress_blocked',
        `The egress policy does not allow ${blocked.host}:${blocked.port} (${blocked.reason}); ask the operator to add it to SERVICE_EGRESS_ALLOW.`,
      );
    }
    const name = (item as Error | undefined)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return new ConnectorError('timeout', `${destination} did not answer in time.`);
    }
  }
  const code = errorCode(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new ConnectorError('timeout', `${destination} did not answer in time (${code}).`);
  }
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new ConnectorError(
      'unreachable',
      `${destination} is unreachable: ${errorMessage(error)} (${code}).`,
    );
  }
  return undefined;
}

export async function withDeadline<T>(
  ms: number,
  destination: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const controller = new AbortController();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ConnectorError('timeout', `${destination} did not answer within ${ms / 1000} s.`);
      // The work is told too, so that it stops (a parse thread is terminated) instead of running on unobserved.
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
