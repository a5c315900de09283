import { createHash } from 'node:crypto';
import { NormalisedHost } from './egress-host';
import { EgressRule, isExactAddressRule, nameMatches, portMatches } from './egress-rules';
import {
  AddressCategory,
  categoryOf,
  Cidr,
  cidrContains,
  cidrWithin,
  formatIp,
  IpAddress,
  ipv4ForRules,
  makeCidr,
  parseIp,
} from './ip-address';

/** Names of cloud metadata services: allowed only by a host rule that names them exactly (never by a wildcard). */
export const METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

export interface Verdict {
  readonly allowed: boolean;
  /** `<code>: <sentence>`; the code part is stable and safe to aggregate on. */
  readonly reason: string;
}

const LOOPBACK_RANGES: readonly Cidr[] = [
  makeCidr(parseIp('127.0.0.0') as IpAddress, 8),
  makeCidr(parseIp('::1') as IpAddress, 128),
];

function allow(reason: string): Verdict {
  return { allowed: true, reason };
}

function deny(reason: string): Verdict {
  return { allowed: false, reason };
}

/**
 * The allowlist: `judgeName` before any DNS lookup, then `judgeAddress` per resolved address. Name rules never reach
 * loopback, link-local, metadata or reserved addresses, so a DNS answer cannot move a destination onto them.
 */
export class EgressPolicy {
  readonly mode: 'deny_all' | 'allowlist';
  readonly sha256: string;

  constructor(readonly rules: readonly EgressRule[]) {
    this.mode = rules.length === 0 ? 'deny_all' : 'allowlist';
    this.sha256 = createHash('sha256')
      .update(rules.map((r) => r.text).join('\n'), 'utf8')
      .digest('hex');
  }

  get ruleTexts(): string[] {
    return this.rules.map((r) => r.text);
  }

  judgeName(name: string, port: number): Verdict {
    if (METADATA_NAMES.has(name)) {
      const named = this.rules.some((r) => r.kind === 'host' && r.name === name && portMatches(r, port));
      return named
        ? allow(`rule_matched: ${name} is named by a rule`)
        : deny(`metadata_host: ${name} is a cloud metadata service; only a rule naming it exactly allows it`);
    }
    const byName = this.rules.find((r) => nameMatches(r, name) && portMatches(r, port));
    if (byName) return allow(`rule_matched: ${byName.text}`);
    if (this.rules.some((r) => r.kind === 'address' && portMatches(r, port))) {
      return allow('address_rules_apply: the resolved addresses decide');
    }
    return deny(`no_rule: no rule allows ${name}:${port}`);
  }

  judgeAddress(ip: IpAddress, port: number, name: string | undefined): Verdict {
    const text = formatIp(ip);
    const category = categoryOf(ip);
    const candidates = [ip, ...optional(ipv4ForRules(ip))];
    const addressRules = this.rules.filter(
      (r): r is Extract<EgressRule, { kind: 'address' }> =>
        r.kind === 'address' && portMatches(r, port) && candidates.some((c) => cidrContains(r.cidr, c)),
    );
    switch (category) {
      case 'unspecified':
        return deny(`unspecified_address: ${text} is an unspecified address (it reaches this machine)`);
      case 'multicast':
        return deny(`multicast_address: ${text} is a multicast address`);
      case 'metadata':
      case 'link_local':
      case 'reserved': {
        const exact = addressRules.find(isExactAddressRule);
        return exact
          ? allow(`rule_matched: ${exact.text}`)
          : deny(
              `${category}_address: ${text} is ${describe(category)}; only a rule naming the address exactly allows it`,
            );
      }
      case 'loopback': {
        const local = addressRules.find((r) => LOOPBACK_RANGES.some((range) => cidrWithin(r.cidr, range)));
        return local
          ? allow(`rule_matched: ${local.text}`)
          : deny(`loopback_address: ${text} is a loopback address and no loopback rule allows port ${port}`);
      }
      case 'private':
      case 'public': {
        if (addressRules.length > 0) return allow(`rule_matched: ${addressRules[0].text}`);
        const byName =
          name === undefined
            ? undefined
            : this.rules.find((r) => nameMatches(r, name) && portMatches(r, port));
        if (byName) return allow(`rule_matched: ${byName.text}`);
        return deny(`no_rule: no rule allows ${name === undefined ? text : `${name} (${text})`}:${port}`);
      }
    }
  }

  judge(
    host: NormalisedHost,
    port: number,
    addresses: readonly IpAddress[],
  ): Verdict & { address?: IpAddress } {
    if (addresses.length === 0) return deny('resolve_failed: the name has no addresses');
    let first: Verdict | undefined;
    for (const ip of addresses) {
      const verdict = this.judgeAddress(ip, port, host.kind === 'name' ? host.name : undefined);
      if (!verdict.allowed) return { ...verdict, address: ip };
      first ??= verdict;
    }
    return { ...(first as Verdict), address: addresses[0] };
  }

  publicReach(): string[] {
    const reasons: string[] = [];
    for (const rule of this.rules) {
      if (rule.kind === 'address') {
        if (cidrReachesPublic(rule.cidr)) reasons.push(`rule ${rule.text} covers public addresses`);
      } else {
        const name = rule.kind === 'host' ? rule.name : rule.suffix;
        if (!isPrivateUseName(name))
          reasons.push(`rule ${rule.text} names a host that may resolve to a public address`);
      }
    }
    return reasons;
  }
}

function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}

const DESCRIPTIONS: Readonly<Record<AddressCategory, string>> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  private: 'a private address',
  public: 'a public address',
};

function describe(category: AddressCategory): string {
  return DESCRIPTIONS[category];
}

/** Names under suffixes reserved for private use never resolve through the public DNS. */
const PRIVATE_USE_SUFFIXES = [
  'local',
  'internal',
  'lan',
  'home.arpa',
  'localhost',
  'intranet',
  'corp',
  'private',
  'localdomain',
];

function isPrivateUseName(name: string): boolean {
  return PRIVATE_USE_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

/** A CIDR reaches public space unless it lies entirely inside non-public ranges. */
function cidrReachesPublic(cidr: Cidr): boolean {
  return !NON_PUBLIC_RANGES.some((range) => cidrWithin(cidr, range));
}

const NON_PUBLIC_RANGES: readonly Cidr[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
].map((text) => {
  const [address, prefix] = text.split('/');
  return makeCidr(parseIp(address) as IpAddress, Number(prefix));
});

export function isPublicAddress(ip: IpAddress): boolean {
  return categoryOf(ip) === 'public';
}
