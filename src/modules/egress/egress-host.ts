import { formatIp, parseIp, parseIpv6 } from './ip-address';
import type { IpAddress } from './ip-address';

export const MAX_HOST_LENGTH = 253;

export type NormalisedHost =
  | { readonly kind: 'ip'; readonly ip: IpAddress; readonly text: string }
  | { readonly kind: 'name'; readonly name: string; readonly text: string };

export class InvalidHostError extends Error {}

/**
 * The WHATWG host parser turns decimal, hex, octal and short IPv4 forms into dotted quads and applies IDNA; anything
 * that could smuggle another host (userinfo, paths, zone ids) is rejected.
 */
export function normaliseHost(raw: string): NormalisedHost {
  if (raw.length === 0) throw new InvalidHostError('the host is empty');
  if (raw.length > 4 * MAX_HOST_LENGTH) throw new InvalidHostError('the host name is too long');
  let text = raw;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.includes('%'))
    throw new InvalidHostError('IPv6 zone ids and percent-encoded hosts are not allowed');
  if (text.includes(':')) {
    const v6 = parseIpv6(text);
    if (!v6) throw new InvalidHostError(`"${raw}" is not a valid host`);
    return { kind: 'ip', ip: v6, text: formatIp(v6) };
  }
  if (/[\s/\\?#@[\]]/.test(text)) throw new InvalidHostError(`"${raw}" is not a valid host`);
  let hostname = whatwgHostname(text, raw);
  if (hostname.endsWith('.')) hostname = whatwgHostname(hostname.slice(0, -1), raw);
  const ip = parseIp(hostname);
  if (ip) return { kind: 'ip', ip, text: hostname };
  return { kind: 'name', name: checkedName(hostname, raw), text: hostname };
}

function whatwgHostname(text: string, raw: string): string {
  if (text === '') throw new InvalidHostError(`"${raw}" is not a valid host`);
  let hostname: string;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    throw new InvalidHostError(`"${raw}" is not a valid host`);
  }
  if (hostname.startsWith('[')) throw new InvalidHostError(`"${raw}" is not a valid host`);
  return hostname;
}

function checkedName(name: string, raw: string): string {
  if (name.length > MAX_HOST_LENGTH) {
    throw new InvalidHostError(`the host name is longer than ${MAX_HOST_LENGTH} characters`);
  }
  for (const label of name.split('.')) {
    if (label.length === 0 || label.length > 63 || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/.test(label)) {
      throw new InvalidHostError(`"${raw}" is not a valid DNS name`);
    }
  }
  return name;
}
