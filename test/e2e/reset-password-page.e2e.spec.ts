import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Script } from 'node:vm';
import { Browser, chromium } from 'playwright-core';
import { login, signupAccount, tokenFromMail, waitForMail } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/** Debian's Chromium, installed by .ci/run. */
const CHROMIUM = '/usr/bin/chromium';

jest.setTimeout(120_000);

describe('the password-reset page the reset e-mail links to', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is one self-contained page under a strict CSP', async () => {
    const res = await t.request('GET', '/auth/reset-password?token=abc');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-[A-Za-z0-9+/]+=*'; /,
    );
    expect(csp).toContain("connect-src 'self'");
    expect(res.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
    // The one inline script is the one the CSP allows by its hash, and it parses.
    const scripts = [...res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(csp).toContain(`'sha256-${createHash('sha256').update(scripts[0]).digest('base64')}'`);
    expect(() => new Script(scripts[0])).not.toThrow();
    // The token stays in the URL: the markup is the same for every link.
    expect(res.text).not.toContain('abc');
  });

  it('sets the new password from the link in the mail, in a browser that enforces the CSP', async () => {
    const account = await signupAccount(t);
    await t.request('POST', '/auth/forgot-password', { body: { email: account.email } });
    const token = tokenFromMail(await waitForMail(t, account.email, /reset-password\?token=/));

    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs chromium`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await page.goto(`${t.baseUrl}/auth/reset-password?token=${encodeURIComponent(token)}`);
    await page.fill('input[name=new_password]', 'another long passphrase');
    await page.fill('input[name=repeat]', 'a different passphrase');
    await page.click('button[type=submit]');
    await expect(page.locator('#status').textContent()).resolves.toBe('The two passwords differ.');

    await page.fill('input[name=repeat]', 'another long passphrase');
    await page.click('button[type=submit]');
    // A locator, not waitForFunction: the page's CSP refuses the eval that a string predicate needs.
    await page.locator('#status', { hasText: /^Your password/ }).waitFor();
    expect(await page.locator('#reset').isHidden()).toBe(true);
    expect(refused).toEqual([]);
    await page.close();

    await expect(login(t, account.email, 'another long passphrase')).resolves.toEqual(expect.any(String));
    const reused = await t.request('POST', '/auth/reset-password', {
      body: { token, new_password: 'yet another passphrase' },
    });
    expect(reused.body.error.code).toBe('invalid_token');
  });
});
