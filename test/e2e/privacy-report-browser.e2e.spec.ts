import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Browser, chromium, Page } from 'playwright-core';
import { EgressGuardService } from '../../src/modules/egress/egress-guard.service';
import { signupAccount } from '../factories/accounts';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

/** Debian's Chromium, installed by .ci/run; the auditor's browser stand-in. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags that keep Chromium from reaching out on its own (updates, metrics, safe browsing, DNS prefetch): the page
 * must be readable on an auditor's machine with no network, so the test gives it none.
 */
const NETWORK_FREE_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--no-pings',
  '--dns-prefetch-disable',
];

const DENIED_HOST = 'telemetry.example';

function pdfText(file: string, page?: number): string {
  const range = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
  const run = spawnSync('pdftotext', ['-layout', ...range, file, '-'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pdftotext failed: ${run.stderr}`);
  return run.stdout;
}

function pdfPages(file: string): number {
  const run = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
  const pages = /^Pages:\s+(\d+)$/m.exec(run.stdout)?.[1];
  if (run.status !== 0 || pages === undefined) throw new Error(`pdfinfo failed: ${run.stderr}`);
  return Number(pages);
}

describe('the privacy report page in a browser with no network', () => {
  let t: TestApp;
  let receiver: Receiver;
  let dir: string;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  let pageUrl: string;

  beforeAll(async () => {
    for (const tool of [CHROMIUM, '/usr/bin/pdftotext', '/usr/bin/pdfinfo']) {
      if (!existsSync(tool))
        throw new Error(`${tool} is missing: .ci/run installs chromium and poppler-utils`);
    }
    dir = makeTempDir('ds-report-browser-');
    receiver = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
    const operator = (await signupAccount(t)).apiKey;
    await t.request('POST', '/v1/webhooks/test', { token: operator, body: { callback_url: receiver.url } });
    await expect(
      t.app
        .get(EgressGuardService)
        .checkDestination(DENIED_HOST, 443, { purpose: 'connector', orgId: undefined }),
    ).rejects.toThrow();
    const res = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    expect(res.status).toBe(200);
    const file = join(dir, 'privacy-report.html');
    writeFileSync(file, res.text);
    pageUrl = pathToFileURL(file).href;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: NETWORK_FREE_FLAGS });
    const context = await browser.newContext({ offline: true, javaScriptEnabled: false });
    // Every request the page makes is recorded and refused: only the file itself may be read.
    await context.route('**/*', (route) =>
      route.request().url() === pageUrl ? route.continue() : route.abort('internetdisconnected'),
    );
    page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(pageUrl, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What the page names as the store: the SQLite file, or the PostgreSQL server and database. */
  const storeLocation = (): string => {
    const url = t.config.databaseUrl;
    return url === undefined ? t.config.databaseFile : `127.0.0.1:5432${new URL(url).pathname}`;
  };

  it('shows the verdict, the chart and the destinations, and makes no request beyond the file', async () => {
    await expect(page.locator('#verdict .headline').textContent()).resolves.toBe('Verdict: cloud-free');
    expect(await page.locator('#verdict').isVisible()).toBe(true);
    await expect(page.locator('#verdict').textContent()).resolves.toContain('1 allowed, 1 denied');

    const chart = page.locator('#timeline-chart');
    expect(await chart.isVisible()).toBe(true);
    const box = await chart.boundingBox();
    expect(box?.width).toBeGreaterThan(400);
    expect(box?.height).toBeGreaterThan(100);
    const bars = await page
      .locator('#timeline-chart rect.allowed, #timeline-chart rect.denied')
      .evaluateAll((rects) =>
        rects.map((r) => ({
          fill: r.ownerDocument.defaultView?.getComputedStyle(r).fill,
          height: r.getBoundingClientRect().height,
        })),
      );
    expect(bars.length).toBeGreaterThanOrEqual(2);
    expect(bars.every((b) => b.height > 0 && b.fill !== 'none' && b.fill !== 'rgb(0, 0, 0)')).toBe(true);
    expect(new Set(bars.map((b) => b.fill)).size).toBe(2);

    const rows = page.locator('#destinations tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: DENIED_HOST }).isVisible()).toBe(true);
    expect(await rows.filter({ hasText: '127.0.0.1' }).isVisible()).toBe(true);
    expect(await page.locator('#signature').isVisible()).toBe(true);

    const store = page.locator('#store');
    expect(await store.isVisible()).toBe(true);
    await expect(store.textContent()).resolves.toContain(storeLocation());
    await expect(store.textContent()).resolves.toContain(
      t.config.databaseUrl === undefined ? "SQLite, this appliance's file" : 'shared by every replica',
    );

    expect(requested).toEqual([pageUrl]);
  });

  it('takes a screenshot the size of the whole page', async () => {
    const png = await page.screenshot({ fullPage: true, path: join(dir, 'report.png') });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const height = png.readUInt32BE(20);
    expect(height).toBeGreaterThan(1000);
    expect(requested).toEqual([pageUrl]);
  });

  it.each(['A4', 'Letter'] as const)(
    'prints on %s with page numbers, whole tables and the signature on the last page',
    async (format) => {
      const file = join(dir, `report-${format}.pdf`);
      await page.emulateMedia({ media: 'print' });
      await page.pdf({ path: file, format, displayHeaderFooter: false, printBackground: true });
      expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');

      const pages = pdfPages(file);
      expect(pages).toBeGreaterThanOrEqual(2);
      const text = pdfText(file);
      expect(text).toContain('Verdict: cloud-free');
      expect(text).toContain(DENIED_HOST);
      expect(text).toContain('24-hour timeline');
      expect(text).toContain('Where the appliance keeps its state');
      expect(text).toContain(storeLocation());
      for (let n = 1; n <= pages; n++) expect(pdfText(file, n)).toContain(`Page ${n} of ${pages}`);

      const last = pdfText(file, pages);
      expect(last).toContain('Signature');
      expect(last).toContain('BEGIN PUBLIC KEY');
      // The destinations table is not cut: its header and both rows land on one page.
      const tablePage = Array.from({ length: pages }, (_, i) => pdfText(file, i + 1)).find((p) =>
        p.includes('First seen'),
      );
      expect(tablePage).toContain(DENIED_HOST);
      expect(tablePage).toMatch(/127\.0\.0\.1/);
      expect(requested).toEqual([pageUrl]);
    },
  );
});
