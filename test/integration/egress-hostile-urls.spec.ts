import { mkdirSync, rmSync } from 'node:fs';
import { makeTempDir } from '../support/test-app';
import { GuardHarness, Receiver, startGuard, startReceiver, tableResolver } from '../support/egress-fixtures';
import { EgressBlockedError } from '../../src/modules/egress/egress.types';

/**
 * Hostile destinations against a loopback receiver that must never be reached. The only allowed destination is a
 * second loopback port (the "open" receiver), which some cases use to redirect towards the forbidden one.
 */
describe('egress guard against hostile URLs', () => {
  let dir: string;
  let forbidden: Receiver;
  let open: Receiver;
  let h: GuardHarness;
  const context = { purpose: 'webhook' as const, orgId: 'org_test' };

  beforeAll(async () => {
    dir = makeTempDir('ds-egress-');
    forbidden = await startReceiver(undefined, '::');
    open = await startReceiver((req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to) {
        res.writeHead(req.url?.startsWith('/307') ? 307 : 302, {
          location: to.replace('PORT', String(forbidden.port)),
        });
        res.end();
        return;
      }
      res.end('open');
    });
    h = await startGuard(
      dir,
      [
        `127.0.0.1:${open.port}`,
        'hooks.allowed.test',
        '*.wild.test',
        `0.0.0.0/0:${forbidden.port}`,
        `::/0:${forbidden.port}`,
      ],
      tableResolver({
        'hooks.allowed.test': ['127.0.0.1'],
        'rebind.test': ['127.0.0.1'],
        'x.wild.test': ['::1'],
        'mixed.wild.test': ['93.184.216.34', '127.0.0.1'],
        'mapped.wild.test': ['::ffff:127.0.0.1'],
        'zero.wild.test': ['0.0.0.0'],
        'meta.wild.test': ['169.254.169.254'],
        'scoped.wild.test': ['fe80::1%lo'],
      }),
    );
  });

  afterAll(async () => {
    await h.close();
    await forbidden.close();
    await open.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const P = (): number => forbidden.port;
  const longHost = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(55)}.test`;
  const cases: [string, () => string, RegExp][] = [
    ['loopback literal', () => `http://127.0.0.1:${P()}/`, /loopback_address/],
    ['decimal IPv4', () => `http://2130706433:${P()}/`, /loopback_address/],
    ['hex IPv4 short form', () => `http://0x7f.1:${P()}/`, /loopback_address/],
    ['octal IPv4', () => `http://0177.0.0.1:${P()}/`, /loopback_address/],
    ['hex IPv4 whole', () => `http://0x7f000001:${P()}/`, /loopback_address/],
    ['octal IPv4 whole', () => `http://017700000001:${P()}/`, /loopback_address/],
    ['dotted hex octets', () => `http://0x7f.0x0.0x0.0x1:${P()}/`, /loopback_address/],
    ['short IPv4', () => `http://127.1:${P()}/`, /loopback_address/],
    ['fullwidth digits', () => `http://１２７.０.０.１:${P()}/`, /loopback_address/],
    ['trailing dot on an address', () => `http://127.0.0.1.:${P()}/`, /loopback_address/],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${P()}/`, /loopback_address/],
    ['IPv4-mapped IPv6, long form', () => `http://[0:0:0:0:0:ffff:127.0.0.1]:${P()}/`, /loopback_address/],
    ['NAT64', () => `http://[64:ff9b::7f00:1]:${P()}/`, /loopback_address/],
    ['6to4', () => `http://[2002:7f00:1::]:${P()}/`, /loopback_address/],
    ['IPv6 loopback', () => `http://[::1]:${P()}/`, /loopback_address/],
    ['IPv6 unspecified', () => `http://[::]:${P()}/`, /unspecified_address/],
    ['0.0.0.0', () => `http://0.0.0.0:${P()}/`, /unspecified_address/],
    ['0 as an address', () => `http://0:${P()}/`, /unspecified_address/],
    ['localhost', () => `http://localhost:${P()}/`, /loopback_address/],
    ['localhost with trailing dot', () => `http://LocalHost.:${P()}/`, /loopback_address/],
    [
      'userinfo naming an allowed host',
      () => `http://hooks.allowed.test@127.0.0.1:${P()}/`,
      /userinfo_not_allowed/,
    ],
    [
      'userinfo with a port-like password',
      () => `http://127.0.0.1:${P()}@hooks.allowed.test/`,
      /userinfo_not_allowed/,
    ],
    ['fragment trick', () => `http://127.0.0.1:${P()}#@hooks.allowed.test/`, /loopback_address/],
    ['backslash trick', () => `http://hooks.allowed.test\\@127.0.0.1:${P()}/`, /loopback_address/],
    ['IPv6 zone id', () => `http://[fe80::1%25lo]:${P()}/`, /invalid_url/],
    ['IPv6 loopback with zone id', () => `http://[::1%25lo]:${P()}/`, /invalid_url/],
    ['300-character host', () => `http://${longHost}:${P()}/`, /invalid_host/],
    ['file scheme', () => 'file:///etc/passwd', /scheme_not_allowed/],
    ['gopher scheme', () => `gopher://127.0.0.1:${P()}/_GET%20/`, /scheme_not_allowed/],
    ['ftp scheme', () => `ftp://127.0.0.1:${P()}/`, /scheme_not_allowed/],
    ['data scheme', () => 'data:text/plain,hello', /scheme_not_allowed/],
    ['allowed name resolving to loopback', () => `http://hooks.allowed.test:${P()}/`, /loopback_address/],
    ['unlisted name resolving to loopback', () => `http://rebind.test:${P()}/`, /loopback_address/],
    ['wildcard name resolving to ::1', () => `http://x.wild.test:${P()}/`, /loopback_address/],
    [
      'name with one public and one loopback address',
      () => `http://mixed.wild.test:${P()}/`,
      /loopback_address/,
    ],
    ['name resolving to IPv4-mapped loopback', () => `http://mapped.wild.test:${P()}/`, /loopback_address/],
    ['name resolving to 0.0.0.0', () => `http://zero.wild.test:${P()}/`, /unspecified_address/],
    ['name resolving to the metadata address', () => `http://meta.wild.test:${P()}/`, /metadata_address/],
    ['name resolving to a scoped address', () => `http://scoped.wild.test:${P()}/`, /invalid_address/],
    ['metadata host name', () => 'http://metadata.google.internal/computeMetadata/v1/', /metadata_host/],
    ['metadata address', () => 'http://169.254.169.254/latest/meta-data/', /no_rule|metadata_address/],
    ['AWS IPv6 metadata address', () => `http://[fd00:ec2::254]:${P()}/`, /metadata_address/],
    [
      'redirect from an allowed port to a blocked one',
      () => `${open.url}/302?to=${encodeURIComponent('http://127.0.0.1:PORT/')}`,
      /loopback_address/,
    ],
    [
      '307 redirect to localhost',
      () => `${open.url}/307?to=${encodeURIComponent('http://localhost:PORT/x')}`,
      /loopback_address/,
    ],
    [
      'redirect to a file URL',
      () => `${open.url}/302?to=${encodeURIComponent('file:///etc/passwd')}`,
      /scheme_not_allowed/,
    ],
    [
      'redirect to a decimal address',
      () => `${open.url}/302?to=${encodeURIComponent('http://2130706433:PORT/')}`,
      /loopback_address/,
    ],
  ];

  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('blocks %s', async (_name, url, reason) => {
    const error = await h.guard.fetch(url(), { method: 'POST', body: '{}' }, context).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EgressBlockedError);
    expect((error as EgressBlockedError).reason).toMatch(reason);
    expect(forbidden.connections).toBe(0);
  });

  // `send` follows no redirect: a case that reaches the forbidden receiver only through one is answered 3xx instead.
  it.each(cases)(
    'send blocks %s, or answers its redirect without following it',
    async (name, url, reason) => {
      const outcome = await h.guard.send(url(), { method: 'POST', headers: {}, body: '{}' }, context).then(
        (answer) => answer.status,
        (e: unknown) => e,
      );
      if (name.includes('redirect')) {
        expect([302, 307]).toContain(outcome);
      } else {
        expect(outcome).toBeInstanceOf(EgressBlockedError);
        expect((outcome as EgressBlockedError).reason).toMatch(reason);
      }
      expect(forbidden.connections).toBe(0);
    },
  );

  it('never reached the forbidden receiver, and recorded every refusal in a verified chain', async () => {
    expect(forbidden.connections).toBe(0);
    expect(forbidden.requests).toHaveLength(0);
    const chain = await h.decisions.verifyChain();
    expect(chain.verified).toBe(true);
    expect(chain.length).toBeGreaterThanOrEqual(cases.length);
    const denied = (await h.counter.get()).values.find((v) => v.labels.decision === 'denied');
    expect(denied?.value).toBeGreaterThanOrEqual(cases.length);
  });

  it('still lets the allowed destination through, pinned to its checked address', async () => {
    const response = await h.guard.fetch(`${open.url}/hello`, {}, context);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('open');
    expect(h.pinned.has('127.0.0.1', open.port)).toBe(true);
    expect(h.pinned.has('127.0.0.1', forbidden.port)).toBe(false);
  });

  it('sends one request through the guard: the status and headers, the body read and dropped', async () => {
    const before = open.requests.length;
    const answer = await h.guard.send(
      `http://hooks.allowed.test:${open.port}/hook?x=1`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: '{"a":1}' },
      context,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBe('4');
    const request = open.requests[before];
    expect(request).toMatchObject({ method: 'POST', url: '/hook?x=1' });
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes' });
    expect(request.headers.host).toBe(`hooks.allowed.test:${open.port}`);
    expect(request.body.toString()).toBe('{"a":1}');
  });

  it('sends again on the same connection, and cuts off an answer too long to read', async () => {
    const long = await startReceiver((req, res) => {
      if (req.url === '/long') res.end('x'.repeat(1024 * 1024));
      else res.end('short');
    });
    mkdirSync(`${dir}/long`);
    const guard = await startGuard(`${dir}/long`, [`127.0.0.1:${long.port}`]);
    try {
      const send = (path: string) =>
        guard.guard.send(`${long.url}${path}`, { method: 'POST', headers: {}, body: '' }, context);
      expect((await send('/a')).status).toBe(200);
      // The connection goes back to the pool once the answer's end has been handled, a turn of the loop later.
      await new Promise((resolve) => setImmediate(resolve));
      expect((await send('/b')).status).toBe(200);
      expect(long.connections).toBe(1);
      expect((await send('/long')).status).toBe(200);
      expect((await send('/c')).status).toBe(200);
      expect(long.connections).toBeGreaterThan(1);
      expect(long.requests.map((r) => r.url)).toEqual(['/a', '/b', '/long', '/c']);
    } finally {
      await guard.close();
      await long.close();
    }
  });

  it('gives up on a receiver that does not answer when its signal aborts', async () => {
    const silent = await startReceiver(() => undefined);
    mkdirSync(`${dir}/silent`);
    const guard = await startGuard(`${dir}/silent`, [`127.0.0.1:${silent.port}`]);
    try {
      const signal = AbortSignal.timeout(200);
      const outcome = await guard.guard
        .send(silent.url, { method: 'POST', headers: {}, body: '', signal }, context)
        .then(
          () => 'answered',
          (e: unknown) => e,
        );
      expect(signal.aborted).toBe(true);
      expect((outcome as Error).name).toBe('TimeoutError');
    } finally {
      await guard.close();
      await silent.close();
    }
  });
});
