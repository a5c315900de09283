import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestApp } from '../support/test-app';

export interface TestAccount {
  readonly email: string;
  readonly password: string;
  readonly name: string;
  readonly orgId: string;
  readonly userId: string;
  /** The bootstrap key: an owner key of the new organization. */
  readonly apiKey: string;
  readonly apiKeyId: string;
  readonly isOperator: boolean;
}

let counter = 0;

export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${counter}-${randomBytes(4).toString('hex')}@example.test`;
}

/** Signs up a fresh organization over HTTP (POST /auth/signup) and returns its owner and bootstrap key. */
export async function signupAccount(
  t: TestApp,
  overrides: { email?: string; password?: string; name?: string } = {},
): Promise<TestAccount> {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? `pw-${randomBytes(12).toString('hex')}`;
  const name = overrides.name ?? 'Test Owner';
  const res = await t.request('POST', '/auth/signup', { body: { email, password, name } });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return {
    email,
    password,
    name,
    orgId: res.body.organization.id,
    userId: res.body.user.id,
    apiKey: res.body.api_key.raw_key,
    apiKeyId: res.body.api_key.id,
    isOperator: false,
  };
}

/** Creates another key of the caller's org over HTTP; returns the raw key and its id. */
export async function createApiKey(
  t: TestApp,
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ rawKey: string; id: string; body: any }> {
  const res = await t.request('POST', '/v1/api-keys', { token, body: { label: 'test key', ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { rawKey: res.body.raw_key, id: res.body.id, body: res.body };
}

/** Logs in over HTTP and returns the session token. */
export async function login(t: TestApp, email: string, password: string): Promise<string> {
  const res = await t.request('POST', '/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.access_token;
}

/** The .eml files of the mail outbox, oldest first, as text. */
export function outboxMessages(t: TestApp): string[] {
  let names: string[];
  try {
    names = readdirSync(t.config.mailOutboxDir).filter((n) => n.endsWith('.eml'));
  } catch {
    return [];
  }
  return names.sort().map((n) => readFileSync(join(t.config.mailOutboxDir, n), 'utf8'));
}

/** Waits for a mail to `to` whose text matches `pattern` (mail can be written after the HTTP answer). */
export async function waitForMail(
  t: TestApp,
  to: string,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = outboxMessages(t).find((m) => m.includes(`To: ${to}`) && pattern.test(m));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${String(pattern)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function tokenFromMail(mail: string): string {
  const match = /token=([A-Za-z0-9_-]+)/.exec(mail);
  if (!match) throw new Error('no token in mail');
  return match[1];
}
