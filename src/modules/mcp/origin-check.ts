import { AppError } from '../../common/errors';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.startsWith('127.');
}

/**
 * A page from another origin must not drive MCP with a credential it got hold of (DNS rebinding, stray tabs): only
 * the Host requested, the public base URL and the other loopback name of the same port pass.
 */
export function checkOrigin(
  origin: string | undefined,
  host: string | undefined,
  listen: { host: string; publicBaseUrl?: string },
): void {
  if (origin === undefined || origin === '') return;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    throw new AppError('origin_not_allowed', `The Origin "${origin}" is not allowed.`);
  }
  if (host !== undefined && parsed.host === host) return;
  if (listen.publicBaseUrl !== undefined) {
    try {
      if (new URL(listen.publicBaseUrl).origin === parsed.origin) return;
    } catch {
      // an unparsable public base URL allows nothing extra
    }
  }
  const requestPort = host?.split(':').pop();
  if (
    isLoopback(listen.host) &&
    isLoopback(parsed.hostname) &&
    parsed.port !== '' &&
    parsed.port === requestPort
  )
    return;
  throw new AppError('origin_not_allowed', `The Origin "${origin}" is not allowed.`);
}
