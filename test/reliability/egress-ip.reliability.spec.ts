import fc from 'fast-check';
import { BlockList, isIP } from 'node:net';
import { AddressCategory, categoryOf, formatIp, parseIp } from '../../src/modules/egress/ip-address';
import { checkProperty } from './support/property';

/**
 * The oracle: the address policy of docs/egress.md written down again as node:net BlockLists, and the embedded IPv4
 * host of each IPv6 form read from its 16-bit groups (not from the classifier's bit arithmetic).
 */
const POLICY: readonly [AddressCategory, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link_local', '169.254.0.0', 16, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['link_local', 'fe80::', 10, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['reserved', 'fec0::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '100::', 64, 'ipv6'],
];
const METADATA = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.169.123',
  '169.254.169.253',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
];
const SEVERITY: readonly AddressCategory[] = [
  'public',
  'private',
  'reserved',
  'multicast',
  'link_local',
  'loopback',
  'metadata',
  'unspecified',
];

function blockListOf(entries: readonly [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of entries) list.addSubnet(network, prefix, family);
  return list;
}
const metadataList = blockListOf(
  METADATA.map((a) => [a, a.includes(':') ? 128 : 32, a.includes(':') ? 'ipv6' : 'ipv4']),
);
const rangeLists = POLICY.map(([category, network, prefix, family]) => ({
  category,
  list: blockListOf([[network, prefix, family]]),
  family,
}));

function oracleDirect(text: string, family: 'ipv4' | 'ipv6'): AddressCategory {
  if (metadataList.check(text, family)) return 'metadata';
  // node's BlockList matches an IPv4-mapped IPv6 address against IPv4 rules; the classifier's direct category does
  // not (it judges the mapped IPv4 host as an embedding), so only same-family rules are asked here.
  return rangeLists.find((r) => r.family === family && r.list.check(text, family))?.category ?? 'public';
}

const hex = (group: number): string => group.toString(16);
const dotted = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 host an IPv6 address carries (RFC 4291 mapped/compatible, SIIT, NAT64, 6to4, Teredo), from its groups. */
function oracleEmbedded(g: readonly number[]): string | undefined {
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6], g[7]);
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return dotted(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return dotted(g[6], g[7]);
  if (g[0] === 0x2002) return dotted(g[1], g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return dotted(g[6] ^ 0xffff, g[7] ^ 0xffff);
  return undefined;
}

function oracleCategory(text: string, groups: readonly number[]): AddressCategory {
  const own = oracleDirect(text, 'ipv6');
  const inner = oracleEmbedded(groups);
  if (inner === undefined) return own;
  const carried = oracleDirect(inner, 'ipv4');
  return SEVERITY.indexOf(carried) > SEVERITY.indexOf(own) ? carried : own;
}

const group = fc.integer({ min: 0, max: 0xffff });
const octets = fc.tuple(...Array.from({ length: 4 }, () => fc.integer({ min: 0, max: 255 })));
const v4Interesting = fc.oneof(
  octets,
  fc
    .tuple(
      fc.constantFrom(...POLICY.filter((p) => p[3] === 'ipv4'), ['x', '0.0.0.0', 0, 'ipv4'] as const),
      octets,
    )
    .map(([[, network], random]) => {
      const base = network.split('.').map(Number);
      return base.map((b, i) => (i < 2 ? b : random[i])) as [number, number, number, number];
    }),
  fc.constantFrom(...METADATA.filter((m) => !m.includes(':'))).map((m) => m.split('.').map(Number)),
);

/** IPv6 addresses as 8 groups, biased towards the embeddings and the special ranges. */
const v6Groups: fc.Arbitrary<number[]> = fc.oneof(
  fc.array(group, { minLength: 8, maxLength: 8 }),
  fc
    .tuple(v4Interesting, fc.array(group, { minLength: 8, maxLength: 8 }), fc.integer({ min: 0, max: 8 }))
    .map(([v4, rest, form]) => {
      const hi = (v4[0] << 8) | v4[1];
      const lo = (v4[2] << 8) | v4[3];
      switch (form) {
        case 0:
          return [0, 0, 0, 0, 0, 0xffff, hi, lo];
        case 1:
          return [0, 0, 0, 0, 0, 0, hi, lo];
        case 2:
          return [0, 0, 0, 0, 0xffff, 0, hi, lo];
        case 3:
          return [0x64, 0xff9b, 0, 0, 0, 0, hi, lo];
        case 4:
          return [0x64, 0xff9b, 1, rest[3], rest[4], rest[5], hi, lo];
        case 5:
          return [0x2002, hi, lo, rest[3], rest[4], rest[5], rest[6], rest[7]];
        case 6:
          return [0x2001, 0, rest[2], rest[3], rest[4], rest[5], hi ^ 0xffff, lo ^ 0xffff];
        default:
          return [0, 0, 0, 0, 0, 0, 0, form === 7 ? 1 : 0];
      }
    }),
  fc
    .tuple(
      fc.constantFrom(0xfe80, 0xfc00, 0xfd00, 0xfec0, 0xff02, 0x100, 0xfd00),
      fc.array(group, { minLength: 7, maxLength: 7 }),
    )
    .map(([first, rest]) => [first, ...rest]),
);

/** Every textual spelling of the same groups: full, zero-compressed at any run, upper/lower case, padded, dotted tail. */
const v6Text = fc
  .tuple(v6Groups, fc.boolean(), fc.boolean(), fc.boolean(), fc.nat())
  .map(([groups, upper, pad, dottedTail, pick]) => {
    const parts = groups.map((g) => (pad ? hex(g).padStart(4, '0') : hex(g)));
    if (dottedTail) parts.splice(6, 2, dotted(groups[6], groups[7]));
    const runs: [number, number][] = [];
    for (let i = 0; i < parts.length; i++)
      for (let j = i + 1; j <= parts.length; j++)
        if (parts.slice(i, j).every((p) => /^0+$/.test(p))) runs.push([i, j]);
    let text = parts.join(':');
    if (runs.length > 0 && pick % 3 !== 0) {
      const [i, j] = runs[pick % runs.length];
      text = `${parts.slice(0, i).join(':')}::${parts.slice(j).join(':')}`;
    }
    return { groups, text: upper ? text.toUpperCase() : text };
  });

describe('the egress IP classifier against a node:net oracle', () => {
  it('classifies every textual IPv6 form as the oracle does, embedded IPv4 hosts included', async () => {
    await checkProperty(
      fc.property(v6Text, ({ groups, text }) => {
        expect(isIP(text)).toBe(6);
        const parsed = parseIp(text);
        expect(parsed).toBeDefined();
        expect({ text, category: categoryOf(parsed!) }).toEqual({
          text,
          category: oracleCategory(text, groups),
        });
        expect(parseIp(formatIp(parsed!))).toEqual(parsed);
      }),
    );
  });

  it('classifies IPv4 addresses as the oracle does', async () => {
    await checkProperty(
      fc.property(v4Interesting, (v4) => {
        const text = v4.join('.');
        const parsed = parseIp(text);
        expect(parsed).toBeDefined();
        expect({ text, category: categoryOf(parsed!) }).toEqual({
          text,
          category: oracleDirect(text, 'ipv4'),
        });
      }),
    );
  });

  it('accepts exactly the text node:net accepts as an address (no zones), and nothing looser', async () => {
    const alphabet = fc.constantFrom(
      ...'0123456789abcdefABCDEF:.'.split(''),
      '::',
      '255',
      'ffff',
      '00',
      ' ',
      'g',
      '%',
    );
    await checkProperty(
      fc.property(
        fc.oneof(
          fc.array(alphabet, { maxLength: 45 }).map((a) => a.join('')),
          v6Text.map((v) => v.text.slice(1)),
        ),
        (text) => {
          const expected = text.includes('%') ? 0 : isIP(text);
          const parsed = parseIp(text);
          expect({ text, family: parsed?.family ?? 0 }).toEqual({ text, family: expected });
        },
      ),
    );
  });
});
