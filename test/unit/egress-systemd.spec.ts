import { parseRules } from '../../src/modules/egress/egress-rules';
import { nameserversOf, renderEgressDropIn, unenforcedRules } from '../../src/cli/egress-systemd';

const allowLines = (dropIn: string): string[] =>
  dropIn.split('\n').filter((l) => l.startsWith('IPAddressAllow='));

describe('decisionctl egress render-systemd', () => {
  const base = { policySha256: 'abc', nameservers: ['10.0.0.53'], clients: [] };

  it('allows nothing beyond the unit when the policy denies all, and never resets the list', () => {
    const dropIn = renderEgressDropIn({ ...base, rules: [] });
    expect(dropIn).toContain('[Service]');
    expect(allowLines(dropIn)).toEqual([]);
    expect(dropIn).not.toMatch(/^IPAddressAllow=$/m);
  });

  it('turns address and CIDR rules into IPAddressAllow lines, ports aside', () => {
    const rules = parseRules(['10.20.0.0/16', '192.168.1.5:5432', '[fd00::/8]:443', '10.20.0.0/16:80']);
    expect(allowLines(renderEgressDropIn({ ...base, rules }))).toEqual([
      'IPAddressAllow=10.20.0.0/16',
      'IPAddressAllow=192.168.1.5/32',
      'IPAddressAllow=fd00::/8',
    ]);
    expect(unenforcedRules({ ...base, rules })).toEqual([]);
  });

  it('allows host rules only through addresses resolved at render time, plus the DNS servers', () => {
    const rules = parseRules(['smtp.corp.example:587', '*.corp.example']);
    const unresolved = renderEgressDropIn({ ...base, rules });
    expect(allowLines(unresolved)).toEqual(['IPAddressAllow=10.0.0.53']);
    expect(unresolved).toMatch(/# rule smtp\.corp\.example:587: NOT allowed by the kernel filter/);
    expect(unresolved).toMatch(/# rule \*\.corp\.example: NOT allowed by the kernel filter/);
    expect(unenforcedRules({ ...base, rules })).toEqual(['smtp.corp.example:587', '*.corp.example']);

    const resolved = new Map([['smtp.corp.example', ['10.1.2.3']]]);
    expect(allowLines(renderEgressDropIn({ ...base, rules, resolved }))).toEqual([
      'IPAddressAllow=10.1.2.3',
      'IPAddressAllow=10.0.0.53',
    ]);
    expect(unenforcedRules({ ...base, rules, resolved })).toEqual(['*.corp.example']);
  });

  it('adds API client networks when asked', () => {
    expect(allowLines(renderEgressDropIn({ ...base, rules: [], clients: ['192.168.0.0/24'] }))).toEqual([
      'IPAddressAllow=192.168.0.0/24',
    ]);
  });

  it('reads non-loopback name servers from resolv.conf', () => {
    expect(
      nameserversOf(
        '# x\nnameserver 127.0.0.53\nnameserver 10.0.0.53\nnameserver fe80::1%eth0\nnameserver ::1\n',
      ),
    ).toEqual(['10.0.0.53', 'fe80::1']);
  });
});
