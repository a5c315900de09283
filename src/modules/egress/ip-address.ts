import { BlockList } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IP addresses as integers, so embedded IPv4 forms are read exactly. Only canonical text is accepted: the WHATWG
 * host parser has turned the looser IPv4 forms into dotted quads before anything reaches this file.
 */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

export type AddressCategory =
  'unspecified' | 'loopback' | 'link_local' | 'metadata' | 'multicast' | 'reserved' | 'private' | 'public';

const V4_BITS = 32n;
const V6_BITS = 128n;

export function parseIp(text: string): IpAddress | undefined {
  return parseIpv4(text) ?? parseIpv6(text);
}

export function parseIpv4(text: string): IpAddress | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return undefined;
  return { family: 4, value: valueOf(ipaddr.IPv4.parse(text)) };
}

export function parseIpv6(text: string): IpAddress | undefined {
  if (text.includes('%')) return undefined;
  const hex = withHexTail(text);
  if (hex === undefined || !ipaddr.IPv6.isValid(hex)) return undefined;
  return { family: 6, value: valueOf(ipaddr.IPv6.parse(hex)) };
}

/**
 * ipaddr.js reads `::a.b.c.d` as the mapped `::ffff:a.b.c.d` (a different destination for allow rules) and takes
 * loose IPv4 tails (`::ffff:127.0.0.01`), so a dotted tail is checked as a dotted quad and handed over as two groups.
 */
function withHexTail(text: string): string | undefined {
  const colon = text.lastIndexOf(':');
  const tail = text.slice(colon + 1);
  if (!tail.includes('.')) return text;
  if (colon < 0 || !ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
  const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets;
  return `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function valueOf(address: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  return address.toByteArray().reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function bytesOf(ip: IpAddress): number[] {
  const bytes: number[] = [];
  for (let shift = bitsOf(ip.family) - 8n; shift >= 0n; shift -= 8n)
    bytes.push(Number((ip.value >> shift) & 0xffn));
  return bytes;
}

export function formatIp(ip: IpAddress): string {
  const address = ipaddr.fromByteArray(bytesOf(ip));
  return address instanceof ipaddr.IPv6 ? address.toRFC5952String() : address.toString();
}

export interface Cidr {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
  readonly list: BlockList;
}

export function bitsOf(family: 4 | 6): bigint {
  return family === 4 ? V4_BITS : V6_BITS;
}

function typeOf(family: 4 | 6): 'ipv4' | 'ipv6' {
  return family === 4 ? 'ipv4' : 'ipv6';
}

function maskOf(family: 4 | 6, prefix: number): bigint {
  const bits = bitsOf(family);
  const all = (1n << bits) - 1n;
  return prefix === 0 ? 0n : (all << (bits - BigInt(prefix))) & all;
}

export function makeCidr(ip: IpAddress, prefix: number): Cidr {
  const network = ip.value & maskOf(ip.family, prefix);
  const list = new BlockList();
  list.addSubnet(formatIp({ family: ip.family, value: network }), prefix, typeOf(ip.family));
  return { family: ip.family, network, prefix, list };
}

/** Families are compared first: BlockList would match an IPv4 range against the IPv6 address that maps it. */
export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  return cidr.family === ip.family && cidr.list.check(formatIp(ip), typeOf(ip.family));
}

export function cidrWithin(inner: Cidr, outer: Cidr): boolean {
  return inner.prefix >= outer.prefix && cidrContains(outer, { family: inner.family, value: inner.network });
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIp({ family: cidr.family, value: cidr.network })}/${cidr.prefix}`;
}

function cidr(text: string): Cidr {
  const [address, prefix] = ipaddr.parseCIDR(text);
  return makeCidr({ family: address.kind() === 'ipv4' ? 4 : 6, value: valueOf(address) }, prefix);
}

/** IPv4 carried inside IPv6 (mapping, NAT64, 6to4, Teredo): the packet reaches that host, so it is judged. */
export function embeddedIpv4(ip: IpAddress): IpAddress | undefined {
  if (ip.family !== 6) return undefined;
  const low32 = ip.value & 0xffffffffn;
  const v4 = (value: bigint): IpAddress => ({ family: 4, value });
  if (isIpv4Mapped(ip)) return v4(low32);
  if (ip.value >> 32n === 0n && low32 > 1n) return v4(low32); // ::a.b.c.d (IPv4-compatible, deprecated)
  if (ip.value >> 32n === 0xffff0000n) return v4(low32); // ::ffff:0:a.b.c.d (SIIT)
  if (cidrContains(NAT64_WELL_KNOWN, ip) || cidrContains(NAT64_LOCAL, ip)) return v4(low32);
  if (cidrContains(SIX_TO_FOUR, ip)) return v4((ip.value >> 80n) & 0xffffffffn);
  if (cidrContains(TEREDO, ip)) return v4(low32 ^ 0xffffffffn);
  return undefined;
}

/** `::ffff:a.b.c.d` is a dual-stack socket's IPv4 peer, so IPv4 rules apply; other embeddings go through a relay. */
export function isIpv4Mapped(ip: IpAddress): boolean {
  return ip.family === 6 && ip.value >> 32n === 0xffffn;
}

export function ipv4ForRules(ip: IpAddress): IpAddress | undefined {
  if (ip.family === 4) return ip;
  return isIpv4Mapped(ip) ? { family: 4, value: ip.value & 0xffffffffn } : undefined;
}

const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');
const NAT64_LOCAL = cidr('64:ff9b:1::/48');
const SIX_TO_FOUR = cidr('2002::/16');
const TEREDO = cidr('2001::/32');

/** Cloud instance-metadata endpoints: reachable only when a rule names the exact address. */
export const METADATA_ADDRESSES: readonly IpAddress[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '169.254.169.123', // AWS time sync
  '169.254.169.253', // AWS DNS
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud (legacy)
  'fd00:ec2::254', // AWS IPv6
  'fd00:ec2::23',
].map((text) => parseIp(text) as IpAddress);

const RANGES: readonly (readonly [AddressCategory, Cidr])[] = [
  ['unspecified', cidr('0.0.0.0/8')],
  ['loopback', cidr('127.0.0.0/8')],
  ['link_local', cidr('169.254.0.0/16')],
  ['private', cidr('10.0.0.0/8')],
  ['private', cidr('172.16.0.0/12')],
  ['private', cidr('192.168.0.0/16')],
  ['private', cidr('100.64.0.0/10')],
  ['reserved', cidr('192.0.0.0/24')],
  ['reserved', cidr('198.18.0.0/15')],
  ['multicast', cidr('224.0.0.0/4')],
  ['reserved', cidr('240.0.0.0/4')],
  ['unspecified', cidr('::/128')],
  ['loopback', cidr('::1/128')],
  ['link_local', cidr('fe80::/10')],
  ['private', cidr('fc00::/7')],
  ['reserved', cidr('fec0::/10')],
  ['multicast', cidr('ff00::/8')],
  ['reserved', cidr('100::/64')],
];

function directCategory(ip: IpAddress): AddressCategory {
  if (METADATA_ADDRESSES.some((m) => m.family === ip.family && m.value === ip.value)) return 'metadata';
  for (const [category, range] of RANGES) if (cidrContains(range, ip)) return category;
  return 'public';
}

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

/** The category of an address, judging IPv6 forms by the IPv4 host they carry when that is stricter. */
export function categoryOf(ip: IpAddress): AddressCategory {
  const own = directCategory(ip);
  const inner = embeddedIpv4(ip);
  if (!inner) return own;
  const carried = directCategory(inner);
  return SEVERITY.indexOf(carried) > SEVERITY.indexOf(own) ? carried : own;
}
