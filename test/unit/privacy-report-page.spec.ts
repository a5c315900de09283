import { rmSync } from 'node:fs';
import { loadOrCreateReportKey, ReportKey } from '../../src/modules/privacy/report-key';
import { embedScript, extractEmbeddedReport } from '../../src/modules/privacy/report-embedding';
import { chooseReportFormat } from '../../src/modules/privacy/report-format';
import { renderReportPage } from '../../src/modules/privacy/report-page';
import { describeReportStore } from '../../src/modules/privacy/report-store';
import { signReport, verifyReportText } from '../../src/modules/privacy/report-signature';
import { escapeHtml, markup } from '../../src/modules/privacy/safe-html';
import { makeTempDir } from '../support/test-app';

const HOSTILE = '<img src=x onerror=alert(1)>.example';
const SCRIPT_BREAKER = '</script><script>alert(2)</script>';
/** Text that already looks like the escape: it must come back as written, not as `<`. */
const LOOKALIKE = 'a\\u003cb \\\\u003c \\\\\\u003c';

function hours(start: string, counts: [number, number][]) {
  return counts.map(([allowed, denied], i) => ({
    start: new Date(Date.parse(start) + i * 3_600_000).toISOString(),
    allowed,
    denied,
  }));
}

function reportContent(overrides: Record<string, unknown> = {}) {
  const start = '2026-11-25T12:00:00.000Z';
  return {
    report_version: 1,
    report_id: 'prr_000000000007',
    sequence: 7,
    previous_report_hash: 'ab'.repeat(32),
    generated_at: '2026-11-26T12:00:00.000Z',
    window: { start, end: '2026-11-26T12:00:00.000Z' },
    appliance: { version: '0.1.0', build: 'development' },
    license: { edition: 'community', status: 'unlicensed' },
    telemetry: { phone_home: false, update_check: false, crash_upload: false },
    policy: { mode: 'allowlist', rules: ['10.0.0.0/8', `${SCRIPT_BREAKER}`], sha256: 'cd'.repeat(32) },
    egress_24h: {
      attempts: 5,
      allowed: 3,
      denied: 2,
      hourly: hours(start, [...Array.from({ length: 22 }, (): [number, number] => [0, 0]), [1, 0], [2, 2]]),
      destinations: [
        {
          host: HOSTILE,
          port: 5432,
          purpose: 'connector',
          allowed: 0,
          denied: 2,
          first_seen: '2026-11-26T11:10:00.000Z',
          last_seen: '2026-11-26T11:20:00.000Z',
          addresses: [],
        },
        {
          host: LOOKALIKE,
          port: 443,
          purpose: 'webhook',
          allowed: 3,
          denied: 0,
          first_seen: '2026-11-26T10:10:00.000Z',
          last_seen: '2026-11-26T11:59:00.000Z',
          addresses: ['10.1.2.3'],
        },
      ],
    },
    cloud_free: true,
    cloud_free_findings: [],
    chain: {
      algorithm: 'sha256(prev_hash || canonical_json(row))',
      head_hash: 'ef'.repeat(32),
      length: 5,
      verified: true,
    },
    ...overrides,
  };
}

describe('privacy report page', () => {
  let dir: string;
  let key: ReportKey;
  beforeAll(() => {
    dir = makeTempDir('ds-report-page-');
    key = loadOrCreateReportKey(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const page = (content: Record<string, unknown>) => {
    const document = signReport(content, key.privateKey, key.kid);
    return { document, page: renderReportPage({ document, publicKeyPem: key.publicKeyPem, kid: key.kid }) };
  };

  it('embeds the signed JSON so that it comes back byte for byte and still verifies', () => {
    const { document, page: text } = page(reportContent());
    expect(document).toContain('<img');
    expect(document).toContain('\\\\u003c');
    const extracted = extractEmbeddedReport(text);
    expect(extracted).toBe(document);
    expect(verifyReportText(extracted as string, key.publicKeyPem)).toEqual({
      ok: true,
      reason: `signature valid (key ${key.kid})`,
    });
  });

  it('round-trips every arrangement of backslashes before an escaped <', () => {
    for (const text of ['<', '\\<', '\\\\<', '\\u003c', '<<\\\\u003c<', '"\\\\\\u003c"']) {
      const document = JSON.stringify({ text });
      expect(embedScript(document)).not.toMatch(/<(?!script|\/script)/);
      expect(extractEmbeddedReport(embedScript(document))).toBe(document);
    }
  });

  it('escapes every value it shows, so a hostile host name stays text', () => {
    const { page: text } = page(reportContent());
    expect(text).not.toContain('<img');
    expect(text).toContain(`<td>${escapeHtml(HOSTILE)}</td>`);
    expect(text.match(/<script/g)).toHaveLength(1);
    expect(text.match(/<\/script>/g)).toHaveLength(1);
    expect(text).toContain('&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('fetches nothing: no external reference and a policy that forbids any', () => {
    const { page: text } = page(reportContent());
    expect(text).not.toMatch(/<[a-z][^>]*\s(src|href|action|srcset|poster|data|xlink:href)\s*=/i);
    expect(text).not.toMatch(/url\(|@import|<link|<iframe|<object|<embed/i);
    expect(text).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:">`,
    );
  });

  it('states the verdict in words, with the findings when the appliance is not cloud-free', () => {
    expect(page(reportContent()).page).toContain('Verdict: cloud-free');
    const bad = page(
      reportContent({
        cloud_free: false,
        cloud_free_findings: ['rule hooks.example.com:443 can reach public addresses'],
      }),
    ).page;
    expect(bad).toContain('Verdict: NOT cloud-free');
    expect(bad).toContain('<li>rule hooks.example.com:443 can reach public addresses</li>');
  });

  it('draws one stacked bar per hour, scaled to the busiest hour', () => {
    const { page: text } = page(reportContent());
    const bars = [...text.matchAll(/<g class="hour"><title>[^<]*<\/title>(.*?)<\/g>/g)].map((m) => m[1]);
    expect(bars).toHaveLength(24);
    const heights = bars.flatMap((g) =>
      [...g.matchAll(/<rect class="(allowed|denied)"[^>]* height="([\d.]+)"/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    expect(heights).toEqual([
      ['allowed', 42],
      ['allowed', 84],
      ['denied', 84],
    ]);
    expect(text).toContain('<title>11:00–12:00 UTC: 2 allowed, 2 denied</title>');
  });

  it('shows the destinations, policy, telemetry, chain and the key to verify with', () => {
    const { page: text } = page(reportContent());
    expect(text).toContain('<td>10.1.2.3</td>');
    expect(text).toContain('<code>10.0.0.0/8</code>');
    expect(text).toContain('<dt>Phone home (usage statistics)</dt><dd class="off">off</dd>');
    expect(text).toContain('Decisions recorded</dt><dd>5</dd>');
    expect(text).toContain(`<pre id="public-key">${key.publicKeyPem.trim()}</pre>`);
    expect(text).toContain(`SHA-256 of its signed bytes: ${'ab'.repeat(32)}`);
    expect(text.indexOf('id="signature"')).toBeGreaterThan(text.indexOf('id="destinations"'));
  });

  it('names the build: package version, source commit and SBOM hash, where the report records them', () => {
    const appliance = {
      version: '0.1.0',
      build: '0.1.0-1',
      source_commit: 'c0'.repeat(20),
      sbom_sha256: 'e5'.repeat(32),
    };
    const { document, page: text } = page(reportContent({ appliance }));
    expect(verifyReportText(document, key.publicKeyPem).ok).toBe(true);
    expect(text).toContain('<dt>Build</dt><dd>0.1.0-1</dd>');
    expect(text).toContain(`<dt>Source commit</dt><dd><code>${'c0'.repeat(20)}</code></dd>`);
    expect(text).toContain(`<dt>SBOM SHA-256</dt><dd><code>${'e5'.repeat(32)}</code></dd>`);
    expect(page(reportContent()).page).not.toContain('SBOM SHA-256');
  });

  it("names the SQLite store as this appliance's file, and says when an older report did not name it", () => {
    const store = describeReportStore(
      {
        databaseFile: '/var/lib/ds/service.sqlite',
        datasetsDir: '/var/lib/ds/datasets',
        keysDir: '/var/lib/ds/keys',
      },
      'box1',
    );
    expect(store).toEqual({
      kind: 'sqlite',
      location: '/var/lib/ds/service.sqlite',
      judged_by_egress_policy: false,
      shared_by_replicas: false,
      datasets_dir: '/var/lib/ds/datasets',
      keys_dir: '/var/lib/ds/keys',
      composed_on: 'box1',
    });
    const { document, page: text } = page(reportContent({ store }));
    expect(verifyReportText(document, key.publicKeyPem).ok).toBe(true);
    expect(text).toContain("SQLite, this appliance's file");
    expect(text).toContain('<dt>Location</dt><dd class="path">/var/lib/ds/service.sqlite</dd>');
    expect(text).toContain('<dt>Dataset files</dt><dd class="path">/var/lib/ds/datasets</dd>');
    expect(text).toContain('<dt>Signing keys</dt><dd class="path">/var/lib/ds/keys</dd>');
    expect(text).toContain('<dt>Composed on node</dt><dd>box1</dd>');
    expect(text).toContain('outside the egress policy');
    expect(page(reportContent()).page).toContain('made before reports named the state store');
  });

  it('names a PostgreSQL store by host:port/database, without the user or password of its URL', () => {
    const paths = {
      datasetsDir: '/srv/shared/datasets',
      keysDir: '/srv/shared/keys',
      databaseFile: '/x.sqlite',
    };
    const store = describeReportStore(
      {
        ...paths,
        databaseUrl: 'postgres://decision_owner:s3cr%40t-pw@10.0.0.20/decision%20db?sslmode=require',
      },
      'node2',
    );
    expect(store).toMatchObject({
      kind: 'postgresql',
      location: '10.0.0.20:5432/decision db',
      shared_by_replicas: true,
      datasets_dir: '/srv/shared/datasets',
    });
    expect(
      describeReportStore({ ...paths, databaseUrl: 'postgresql://u@[fd00::20]:6432/ds' }, 'n').location,
    ).toBe('[fd00::20]:6432/ds');
    const { document, page: text } = page(reportContent({ store }));
    for (const format of [document, text]) {
      for (const secret of ['decision_owner', 's3cr', 'sslmode', 'postgres://']) {
        expect(format).not.toContain(secret);
      }
    }
    expect(text).toContain(
      'PostgreSQL server <code>10.0.0.20:5432/decision db</code>, shared by every replica',
    );
  });

  it('escapes interpolations unless they are markup from another template', () => {
    expect(markup`<b>${'<i>'}</b>${markup`<i>${'&'}</i>`}${[1, '"']}`.markup).toBe(
      '<b>&lt;i&gt;</b><i>&amp;</i>1&quot;',
    );
  });
});

describe('report format negotiation', () => {
  it.each([
    [undefined, undefined, 'json'],
    [undefined, '*/*', 'json'],
    [undefined, 'application/json', 'json'],
    [undefined, 'text/html', 'html'],
    [undefined, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html'],
    [undefined, 'application/json, text/html;q=0.5', 'json'],
    [undefined, 'text/*', 'html'],
    ['json', 'text/html', 'json'],
    ['html', 'application/json', 'html'],
  ] as const)('format %s, Accept %s → %s', (format, accept, expected) => {
    expect(chooseReportFormat(format, accept)).toBe(expected);
  });
});
