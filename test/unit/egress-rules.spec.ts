import { normaliseHost } from '../../src/modules/egress/egress-host';
import { EgressPolicy } from '../../src/modules/egress/egress-policy';
import { loadEgressPolicy, policyFileRules } from '../../src/modules/egress/egress-policy.loader';
import { InvalidRuleError, parseRule, parseRules } from '../../src/modules/egress/egress-rules';
import { categoryOf, embeddedIpv4, formatIp, IpAddress, parseIp } from '../../src/modules/egress/ip-address';
import { StartupError } from '../../src/common/errors';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`bad test address ${text}`);
  return parsed;
};

describe('IP addresses', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['64:ff9b::7f00:1', '127.0.0.1'],
    ['64:ff9b::169.254.169.254', '169.254.169.254'],
    ['2002:7f00:1::', '127.0.0.1'],
    ['2002:a9fe:a9fe::1', '169.254.169.254'],
    ['::127.0.0.1', '127.0.0.1'],
  ])('finds the IPv4 host inside %s', (v6, v4) => {
    expect(formatIp(embeddedIpv4(ip(v6)) as IpAddress)).toBe(v4);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['10.1.2.3', 'private'],
    ['172.31.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['8.8.8.8', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
  ])('classifies %s as %s', (text, category) => {
    expect(categoryOf(ip(text))).toBe(category);
  });

  it('formats IPv6 per RFC 5952', () => {
    expect(formatIp(ip('2001:0db8:0000:0000:0000:0000:0000:0001'))).toBe('2001:db8::1');
    expect(formatIp(ip('0:0:0:0:0:0:0:0'))).toBe('::');
    expect(formatIp(ip('fd00:ec2:0:0:0:0:0:254'))).toBe('fd00:ec2::254');
  });

  it('refuses zone ids and non-canonical IPv4', () => {
    expect(parseIp('fe80::1%eth0')).toBeUndefined();
    expect(parseIp('0177.0.0.1')).toBeUndefined();
    expect(parseIp('1.2.3')).toBeUndefined();
  });
});

describe('host normalisation', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['Example.COM.', 'example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('normalises %s to %s', (raw, expected) => {
    expect(normaliseHost(raw).text).toBe(expected);
  });

  it.each([
    '[fe80::1%25eth0]',
    'fe80::1%eth0',
    'a@b',
    'a/b',
    '',
    'a..b',
    `${'a'.repeat(64)}.example`,
    `${'abcdefghi.'.repeat(30)}x`,
  ])('rejects %j', (raw) => {
    expect(() => normaliseHost(raw)).toThrow();
  });
});

describe('rule parsing', () => {
  it.each([
    ['hooks.example.com', 'host', 'hooks.example.com'],
    ['Hooks.Example.com.:443', 'host', 'hooks.example.com:443'],
    ['*.corp.example', 'wildcard', '*.corp.example'],
    ['*.corp.example:8443', 'wildcard', '*.corp.example:8443'],
    ['10.0.0.0/8', 'address', '10.0.0.0/8'],
    ['10.0.0.0/8:5432', 'address', '10.0.0.0/8:5432'],
    ['127.0.0.1:9000', 'address', '127.0.0.1:9000'],
    ['::1', 'address', '::1'],
    ['[::1]:8080', 'address', '[::1]:8080'],
    ['fd00::/8', 'address', 'fd00::/8'],
    ['[fd00::/8]:443', 'address', '[fd00::/8]:443'],
    ['fd00::/8:443', 'address', '[fd00::/8]:443'],
    ['0.0.0.0/0', 'address', '0.0.0.0/0'],
    ['169.254.169.254:80', 'address', '169.254.169.254:80'],
  ])('parses %s', (raw, kind, text) => {
    const rule = parseRule(raw);
    expect(rule.kind).toBe(kind);
    expect(rule.text).toBe(text);
  });

  it.each([
    ['http://example.com', 'not a URL'],
    ['example.com:0', 'outside 1-65535'],
    ['example.com:70000', 'outside 1-65535'],
    ['example.com:http', 'not a port number'],
    ['*', 'allow everything'],
    ['*.com', 'at least two labels'],
    ['a.*.example', 'first label'],
    ['10.0.0.1/8', 'host bits are set'],
    ['10.0.0.0/33', 'prefix length'],
    ['user@example.com', 'may not contain'],
    ['[::1', 'unbalanced'],
    ['exa mple.com', 'may not contain'],
    ['bad_label-.example', 'not a valid DNS name'],
  ])('refuses %s (%s)', (raw, problem) => {
    expect(() => parseRule(raw)).toThrow(InvalidRuleError);
    expect(() => parseRule(raw)).toThrow(problem);
  });

  it('reads policy files with comments and commas', () => {
    expect(policyFileRules('# on-prem\nerp.corp.local:443, 10.0.0.0/8  # db\n\n  [::1]:9000\n')).toEqual([
      'erp.corp.local:443',
      '10.0.0.0/8',
      '[::1]:9000',
    ]);
  });

  it('stops the daemon on a bad rule, naming it and its source', () => {
    let error: unknown;
    try {
      loadEgressPolicy({ egressAllow: ['ok.example', 'bad rule'], egressPolicyFile: undefined });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).event).toBe('egress_policy_invalid');
    expect((error as StartupError).message).toContain('"bad rule"');
    expect((error as StartupError).message).toContain('SERVICE_EGRESS_ALLOW');
  });
});

describe('policy matching', () => {
  const policy = new EgressPolicy(
    parseRules([
      'hooks.example.com:443',
      '*.corp.example',
      '10.0.0.0/8:5432',
      '127.0.0.1:9000',
      '0.0.0.0/0:8443',
      '169.254.169.254:80',
      'metadata.google.internal',
    ]),
  );
  const judge = (address: string, port: number, name?: string): string => {
    const verdict = policy.judgeAddress(ip(address), port, name);
    return verdict.allowed ? 'allow' : verdict.reason.split(':')[0];
  };

  it('matches names exactly, wildcards on subdomains only, and ports', () => {
    expect(policy.judgeName('hooks.example.com', 443).allowed).toBe(true);
    expect(policy.judgeName('hooks.example.com', 81).allowed).toBe(false);
    expect(policy.judgeName('a.b.corp.example', 22).allowed).toBe(true);
    expect(policy.judgeName('corp.example', 22).allowed).toBe(false);
    expect(policy.judgeName('evilcorp.example', 22).allowed).toBe(false);
    expect(policy.judgeName('anything.example', 5432).allowed).toBe(true); // an address rule may still match
  });

  it('lets names reach private and public addresses but never loopback or metadata', () => {
    expect(judge('93.184.216.34', 443, 'hooks.example.com')).toBe('allow');
    expect(judge('10.2.3.4', 22, 'db.corp.example')).toBe('allow');
    expect(judge('127.0.0.1', 443, 'hooks.example.com')).toBe('loopback_address');
    expect(judge('169.254.169.254', 443, 'hooks.example.com')).toBe('metadata_address');
    expect(judge('::ffff:127.0.0.1', 22, 'x.corp.example')).toBe('loopback_address');
  });

  it('applies address rules with their ports', () => {
    expect(judge('10.9.9.9', 5432)).toBe('allow');
    expect(judge('10.9.9.9', 5433)).toBe('no_rule');
    expect(judge('127.0.0.1', 9000)).toBe('allow');
    expect(judge('127.0.0.1', 9001)).toBe('loopback_address');
    expect(judge('::ffff:127.0.0.1', 9000)).toBe('allow');
  });

  it('does not let a broad CIDR reach loopback, link-local, metadata or 0.0.0.0', () => {
    expect(judge('8.8.8.8', 8443)).toBe('allow');
    expect(judge('127.0.0.1', 8443)).toBe('loopback_address');
    expect(judge('169.254.10.10', 8443)).toBe('link_local_address');
    expect(judge('169.254.169.254', 8443)).toBe('metadata_address');
    expect(judge('0.0.0.0', 8443)).toBe('unspecified_address');
    expect(judge('169.254.169.254', 80)).toBe('allow');
  });

  it('allows metadata names only when named exactly', () => {
    expect(policy.judgeName('metadata.google.internal', 80).allowed).toBe(true);
    const wildcard = new EgressPolicy(parseRules(['*.google.internal']));
    expect(wildcard.judgeName('metadata.google.internal', 80).reason).toMatch(/^metadata_host/);
  });

  it('denies everything when there are no rules, and reports public reach', () => {
    const empty = new EgressPolicy([]);
    expect(empty.mode).toBe('deny_all');
    expect(empty.judgeName('localhost', 80).allowed).toBe(false);
    expect(empty.judgeAddress(ip('127.0.0.1'), 80, undefined).allowed).toBe(false);
    expect(empty.publicReach()).toEqual([]);
    expect(new EgressPolicy(parseRules(['10.0.0.0/8', '*.corp.local', '127.0.0.1:1'])).publicReach()).toEqual(
      [],
    );
    expect(policy.publicReach().length).toBeGreaterThan(0);
  });

  it('hashes the canonical rule list', () => {
    const a = new EgressPolicy(parseRules(['A.example', '10.0.0.0/8']));
    const b = new EgressPolicy(parseRules(['a.example.', '10.0.0.0/8']));
    expect(a.sha256).toBe(b.sha256);
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
