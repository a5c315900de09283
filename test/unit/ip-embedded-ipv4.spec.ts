import { BlockList, isIP } from 'node:net';
import { normaliseHost } from '../../src/modules/egress/egress-host';
import { EgressPolicy } from '../../src/modules/egress/egress-policy';
import { parseRules } from '../../src/modules/egress/egress-rules';
import {
  categoryOf,
  embeddedIpv4,
  formatIp,
  IpAddress,
  ipv4ForRules,
  parseIp,
} from '../../src/modules/egress/ip-address';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`bad test address ${text}`);
  return parsed;
};

function groupsOf(value: bigint): number[] {
  const groups: number[] = [];
  for (let i = 7n; i >= 0n; i--) groups.push(Number((value >> (i * 16n)) & 0xffffn));
  return groups;
}

function dotted(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** Every way RFC 4291 lets one write the address: compressed, expanded, zero-padded, upper case, dotted tail. */
function textualForms(value: bigint): string[] {
  const groups = groupsOf(value);
  const hex = groups.map((g) => g.toString(16));
  const padded = groups.map((g) => g.toString(16).padStart(4, '0'));
  const canonical = formatIp({ family: 6, value });
  const head6 = hex.slice(0, 6);
  const tail = dotted(value & 0xffffffffn);
  const forms = [
    canonical,
    canonical.toUpperCase(),
    hex.join(':'),
    padded.join(':'),
    padded.join(':').toUpperCase(),
    `${head6.join(':')}:${tail}`,
    `${padded.slice(0, 6).join(':').toUpperCase()}:${tail}`,
  ];
  const zeroRun = head6.findIndex((g) => g === '0');
  if (zeroRun >= 0) {
    let end = zeroRun;
    while (end < 6 && head6[end] === '0') end++;
    forms.push(`${head6.slice(0, zeroRun).join(':')}::${[...head6.slice(end), tail].join(':')}`);
  }
  return [...new Set(forms)];
}

/** node:net as an independent oracle: does `form` denote exactly the address `canonical`? */
function oracleSameAddress(form: string, canonical: string): boolean {
  const list = new BlockList();
  list.addSubnet(form, 128, 'ipv6');
  return list.check(canonical, 'ipv6');
}

const EMBEDDINGS: readonly (readonly [string, (v4: bigint) => bigint, string, number])[] = [
  ['IPv4-mapped ::ffff:a.b.c.d', (v4) => (0xffffn << 32n) | v4, '::ffff:0:0', 96],
  ['IPv4-compatible ::a.b.c.d', (v4) => v4, '::', 96],
  ['SIIT ::ffff:0:a.b.c.d', (v4) => (0xffff0000n << 32n) | v4, '::ffff:0:0:0', 96],
  ['NAT64 64:ff9b::/96', (v4) => (0x0064ff9bn << 96n) | v4, '64:ff9b::', 96],
  ['6to4 2002::/16', (v4) => (0x2002n << 112n) | (v4 << 80n) | 1n, '2002::', 16],
];

const CARRIED: readonly (readonly [string, string])[] = [
  ['127.0.0.1', 'loopback'],
  ['127.1.2.3', 'loopback'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['169.254.7.7', 'link_local'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.1.2.3', 'private'],
];

describe('IPv6 text forms, compared with node:net', () => {
  const samples = [
    '::1',
    '::',
    'fe80::1',
    '2001:db8::8:800:200c:417a',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::169.254.169.254',
    '2002:7f00:1::',
    '::127.0.0.1',
    '1:2:3:4:5:6:7:8',
  ];

  it.each(samples)('parses every textual form of %s to the address node:net sees', (sample) => {
    const canonical = formatIp(ip(sample));
    for (const form of textualForms(ip(sample).value)) {
      expect([form, isIP(form)]).toEqual([form, 6]);
      expect([form, oracleSameAddress(form, canonical)]).toEqual([form, true]);
      expect([form, formatIp(ip(form))]).toEqual([form, canonical]);
      expect([form, normaliseHost(`[${form}]`).text]).toEqual([form, canonical]);
    }
  });

  it.each([
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '12345::1',
    '::ffff:127.0.0.01',
    '::ffff:1.2.3',
    '::ffff:1.2.3.256',
    '::1.2.3.4:5',
    '1.2.3.4::',
    'g::1',
    ':1:2::3',
  ])('refuses %s, as node:net does', (form) => {
    expect(isIP(form)).toBe(0);
    expect(parseIp(form)).toBeUndefined();
    expect(() => normaliseHost(`[${form}]`)).toThrow();
  });

  it.each(['fe80::1%eth0', '::ffff:127.0.0.1%1', 'FE80::1%25lo'])(
    'refuses the zone id in %s although node:net takes it',
    (form) => {
      expect(parseIp(form)).toBeUndefined();
      expect(() => normaliseHost(form)).toThrow('zone ids');
      expect(() => normaliseHost(`[${form.replace('%', '%25')}]`)).toThrow('zone ids');
    },
  );
});

describe('IPv6 addresses that carry an IPv4 one', () => {
  describe.each(EMBEDDINGS)('%s', (_name, embed, range, prefix) => {
    const oracle = new BlockList();
    oracle.addSubnet(range, prefix, 'ipv6');

    it.each(CARRIED)('is judged by the IPv4 host %s (%s) in every textual form', (v4Text, category) => {
      const value = embed(ip(v4Text).value);
      for (const form of textualForms(value)) {
        expect([form, oracle.check(form, 'ipv6')]).toEqual([form, true]);
        const parsed = ip(form);
        if (value >> 32n !== 0n || (value & 0xffffffffn) > 1n) {
          expect([form, formatIp(embeddedIpv4(parsed) as IpAddress)]).toEqual([form, v4Text]);
        }
        expect([form, categoryOf(parsed)]).toEqual([form, category]);
      }
    });
  });

  it('recognises ::ffff:0:a.b.c.d (the IPv4 part sits in the low 32 bits)', () => {
    expect(formatIp(embeddedIpv4(ip('::ffff:0:7f00:1')) as IpAddress)).toBe('127.0.0.1');
    expect(formatIp(embeddedIpv4(ip('0:0:0:0:FFFF:0000:A9FE:A9FE')) as IpAddress)).toBe('169.254.169.254');
    expect(categoryOf(ip('::ffff:0:169.254.169.254'))).toBe('metadata');
  });

  it('treats only the IPv4-mapped form as the IPv4 address for allow rules', () => {
    expect(formatIp(ipv4ForRules(ip('::ffff:10.0.0.1')) as IpAddress)).toBe('10.0.0.1');
    expect(formatIp(ipv4ForRules(ip('10.0.0.1')) as IpAddress)).toBe('10.0.0.1');
    for (const form of ['::ffff:0:10.0.0.1', '::10.0.0.1', '64:ff9b::10.0.0.1', '2002:a00:1::'])
      expect([form, ipv4ForRules(ip(form))]).toEqual([form, undefined]);
  });
});

describe('allow rules and embedded IPv4 addresses', () => {
  const policy = new EgressPolicy(
    parseRules(['127.0.0.0/8', '10.0.0.0/8:5432', '169.254.169.254:80', '0.0.0.0/0:8443', '::/0:9443']),
  );
  const judge = (address: string, port: number): string => {
    const verdict = policy.judgeAddress(ip(address), port, undefined);
    return verdict.allowed ? 'allow' : verdict.reason.split(':')[0];
  };

  it.each(['127.0.0.1', '::ffff:127.0.0.1', '::FFFF:7F00:1', '0:0:0:0:0:ffff:7f00:0001'])(
    'lets an IPv4 loopback rule allow %s (the same socket)',
    (address) => {
      expect(judge(address, 9000)).toBe('allow');
    },
  );

  it.each([
    '64:ff9b::7f00:1',
    '64:ff9b::127.0.0.1',
    '2002:7f00:1::',
    '2002:7f00:0001:0:0:0:0:1',
    '::7f00:1',
    '::127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
  ])('does not let an IPv4 loopback rule allow %s', (address) => {
    expect(judge(address, 9000)).toBe('loopback_address');
  });

  it('does not let IPv4 rules match translated forms of other addresses either', () => {
    expect(judge('10.1.1.1', 5432)).toBe('allow');
    expect(judge('::ffff:10.1.1.1', 5432)).toBe('allow');
    expect(judge('64:ff9b::10.1.1.1', 5432)).toBe('no_rule');
    expect(judge('2002:a01:101::', 5432)).toBe('no_rule');
    expect(judge('::ffff:0:10.1.1.1', 5432)).toBe('no_rule');
    expect(judge('169.254.169.254', 80)).toBe('allow');
    expect(judge('::ffff:169.254.169.254', 80)).toBe('allow');
    expect(judge('64:ff9b::a9fe:a9fe', 80)).toBe('metadata_address');
    expect(judge('::ffff:0:a9fe:a9fe', 80)).toBe('metadata_address');
  });

  it('applies the built-in blocks to embedded hosts even under catch-all rules', () => {
    expect(judge('64:ff9b::8.8.8.8', 9443)).toBe('allow');
    for (const [address, code] of [
      ['64:ff9b::7f00:1', 'loopback_address'],
      ['2002:a9fe:a9fe::', 'metadata_address'],
      ['::ffff:0:a9fe:707', 'link_local_address'],
      ['::ffff:0:0.0.0.0', 'unspecified_address'],
      ['::ffff:0.0.0.0', 'unspecified_address'],
    ])
      expect([address, judge(address, 9443)]).toEqual([address, code]);
    expect(judge('::ffff:169.254.7.7', 8443)).toBe('link_local_address');
  });
});
