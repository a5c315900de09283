import { InvalidHostError, normaliseHost } from './egress-host';
import { bitsOf, Cidr, formatCidr, formatIp, makeCidr, parseIp } from './ip-address';

/** One allow rule. `port` undefined means every port. */
export type EgressRule =
  | { readonly kind: 'host'; readonly text: string; readonly name: string; readonly port?: number }
  | { readonly kind: 'wildcard'; readonly text: string; readonly suffix: string; readonly port?: number }
  | { readonly kind: 'address'; readonly text: string; readonly cidr: Cidr; readonly port?: number };

export class InvalidRuleError extends Error {
  constructor(
    readonly rule: string,
    readonly problem: string,
  ) {
    super(`invalid egress rule "${rule}": ${problem}`);
  }
}

export function parseRule(raw: string): EgressRule {
  const input = raw.trim().toLowerCase();
  const fail = (problem: string): never => {
    throw new InvalidRuleError(raw.trim(), problem);
  };
  if (input === '') fail('the rule is empty');
  if (input.includes('://')) fail('a rule is a host, host:port or CIDR, not a URL');
  if (/[\s@?#\\]/.test(input)) fail('a rule may not contain spaces, "@", "?", "#" or "\\"');

  const { target, port } = splitPort(input, fail);
  if (target.includes('/')) return addressRule(parseCidr(target, fail), port);
  if (target === '*' || target === '*.')
    fail('"*" would allow everything; write 0.0.0.0/0 and ::/0 if you mean it');
  if (target.startsWith('*.')) {
    const suffix = hostOf(target.slice(2), fail);
    if (suffix.kind === 'ip') fail('a wildcard needs a domain name, not an address');
    if (!suffix.text.includes('.'))
      fail('a wildcard needs a domain with at least two labels (e.g. *.corp.example)');
    return { kind: 'wildcard', text: withPort(`*.${suffix.text}`, port), suffix: suffix.text, port };
  }
  if (target.includes('*')) fail('"*" is only allowed as the first label ("*.domain")');
  const host = hostOf(target, fail);
  if (host.kind === 'ip') return addressRule(makeCidr(host.ip, Number(bitsOf(host.ip.family))), port);
  return { kind: 'host', text: withPort(host.name, port), name: host.name, port };
}

export function parseRules(raws: readonly string[]): EgressRule[] {
  const seen = new Set<string>();
  const rules: EgressRule[] = [];
  for (const raw of raws) {
    const rule = parseRule(raw);
    if (seen.has(rule.text)) continue;
    seen.add(rule.text);
    rules.push(rule);
  }
  return rules;
}

function splitPort(input: string, fail: (problem: string) => never): { target: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(input);
  if (bracketed)
    return {
      target: bracketed[1],
      port: bracketed[2] === undefined ? undefined : portOf(bracketed[2], fail),
    };
  if (input.startsWith('[')) fail('unbalanced "["');
  const slash = input.indexOf('/');
  if (slash >= 0) {
    const rest = input.slice(slash + 1);
    const colon = rest.indexOf(':');
    if (colon < 0) return { target: input };
    return { target: input.slice(0, slash + 1 + colon), port: portOf(rest.slice(colon + 1), fail) };
  }
  const colons = input.split(':').length - 1;
  if (colons === 0) return { target: input };
  if (colons === 1) {
    const [target, port] = input.split(':');
    return { target, port: portOf(port, fail) };
  }
  return { target: input }; // a bare IPv6 address
}

function portOf(text: string, fail: (problem: string) => never): number {
  if (!/^\d{1,5}$/.test(text)) fail(`"${text}" is not a port number`);
  const port = Number(text);
  if (port < 1 || port > 65535) fail(`port ${port} is outside 1-65535`);
  return port;
}

function parseCidr(text: string, fail: (problem: string) => never): Cidr {
  const [addressText, prefixText, extra] = text.split('/');
  if (extra !== undefined) fail('a CIDR has one "/"');
  const ip = parseIp(addressText);
  if (!ip) fail(`"${addressText}" is not an IP address (write CIDRs with canonical addresses)`);
  const address = ip;
  const bits = Number(bitsOf(address.family));
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits)
    fail(`"/${prefixText}" is not a prefix length 0-${bits}`);
  const cidr = makeCidr(address, Number(prefixText));
  if (cidr.network !== address.value) {
    fail(`host bits are set; did you mean ${formatCidr(cidr)}?`);
  }
  return cidr;
}

function hostOf(text: string, fail: (problem: string) => never): ReturnType<typeof normaliseHost> {
  try {
    return normaliseHost(text);
  } catch (error) {
    return fail(error instanceof InvalidHostError ? error.message : 'not a host');
  }
}

function addressRule(cidr: Cidr, port: number | undefined): EgressRule {
  const full = cidr.prefix === Number(bitsOf(cidr.family));
  const base = full ? formatIp({ family: cidr.family, value: cidr.network }) : formatCidr(cidr);
  const text = cidr.family === 6 && port !== undefined ? `[${base}]:${port}` : withPort(base, port);
  return { kind: 'address', text, cidr, port };
}

function withPort(base: string, port: number | undefined): string {
  return port === undefined ? base : `${base}:${port}`;
}

export function isExactAddressRule(rule: EgressRule): boolean {
  return rule.kind === 'address' && rule.cidr.prefix === Number(bitsOf(rule.cidr.family));
}

export function portMatches(rule: EgressRule, port: number): boolean {
  return rule.port === undefined || rule.port === port;
}

export function nameMatches(rule: EgressRule, name: string): boolean {
  if (rule.kind === 'host') return rule.name === name;
  if (rule.kind === 'wildcard') return name.endsWith(`.${rule.suffix}`);
  return false;
}
