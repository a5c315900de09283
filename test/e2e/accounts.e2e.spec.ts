import { createHmac } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { requestFrom } from '../support/source-address';
import { startTestApp, TestApp } from '../support/test-app';
import {
  login,
  outboxMessages,
  signupAccount,
  tokenFromMail,
  uniqueEmail,
  waitForMail,
} from '../factories/accounts';

const JWT_SECRET = 'e2e-jwt-secret-for-forging-tokens';

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function forgeJwt(header: object, claims: object, secret = JWT_SECRET): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

describe('hosted accounts over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_JWT_SECRET: JWT_SECRET });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /auth/signup', () => {
    it('creates organization, owner and a bootstrap owner key shown once; the first org is the operator org', async () => {
      const email = uniqueEmail('first');
      const res = await t.request('POST', '/auth/signup', {
        body: { email, password: 'correct horse battery', name: 'Ada Operator' },
      });
      expect(res.status).toBe(201);
      expect(res.body.organization).toEqual({ id: expect.stringMatching(/^org_/), name: 'Ada Operator' });
      expect(res.body.user).toMatchObject({
        id: expect.stringMatching(/^usr_/),
        email,
        name: 'Ada Operator',
        role: 'owner',
      });
      const key = res.body.api_key;
      expect(key).toMatchObject({ label: 'bootstrap', role: 'owner', device_limit: 0, expires_at: null });
      expect(key.raw_key).toMatch(/^dsk_live_[A-Za-z0-9_-]{43}$/);
      expect(key.key_prefix).toBe(key.raw_key.slice(0, 12));
      expect(new Date(key.created_at).toISOString()).toBe(key.created_at);

      const me = await t.request('GET', '/v1/me', { token: key.raw_key });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        organization: { id: res.body.organization.id, name: 'Ada Operator', is_operator: true },
        key: { id: key.id, label: 'bootstrap', role: 'owner' },
        auth: 'api_key',
      });

      const second = await signupAccount(t);
      const me2 = await t.request('GET', '/v1/me', { token: second.apiKey });
      expect(me2.body.organization.is_operator).toBe(false);

      const list = await t.request('GET', '/v1/api-keys', { token: key.raw_key });
      expect(JSON.stringify(list.body)).not.toContain(key.raw_key);
    });

    it('refuses a duplicate e-mail (any case) with 409 email_taken', async () => {
      const account = await signupAccount(t);
      const res = await t.request('POST', '/auth/signup', {
        body: { email: account.email.toUpperCase(), password: 'another long password', name: 'Dup' },
      });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('email_taken');
    });

    it.each([
      ['a short password', { password: 'short-11chr' }, 'password'],
      ['a missing password', { password: undefined }, 'password'],
      ['a numeric password', { password: 123456789012345 }, 'password'],
      ['a malformed e-mail', { email: 'not-an-email' }, 'email'],
      ['a missing e-mail', { email: undefined }, 'email'],
      ['a missing name', { name: undefined }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['an overlong name', { name: 'x'.repeat(201) }, 'name'],
      ['an unknown field', { plan: 'gold' }, 'plan'],
    ])('answers %s with 422 validation_failed', async (_what, change, field) => {
      const body: Record<string, unknown> = {
        email: uniqueEmail(),
        password: 'long enough password',
        name: 'N',
        ...change,
      };
      const res = await t.request('POST', '/auth/signup', { body });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('sends a verification mail whose single-use link verifies the address', async () => {
      const account = await signupAccount(t);
      const mail = await waitForMail(t, account.email, /\/auth\/verify\?token=/);
      expect(mail).toContain('Content-Type: text/plain');
      expect(mail).not.toMatch(/Content-Transfer-Encoding: base64/i);
      const token = tokenFromMail(mail);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const ok = await t.request('GET', `/auth/verify?token=${token}`);
      expect(ok.status).toBe(200);
      const again = await t.request('GET', `/auth/verify?token=${token}`);
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('invalid_token');
      const unknown = await t.request('GET', '/auth/verify?token=nope-not-a-token');
      expect(unknown.body.error.code).toBe('invalid_token');

      const session = await login(t, account.email, account.password);
      const me = await t.request('GET', '/v1/me', { token: session });
      expect(me.body.user.email_verified).toBe(true);

      const files = readdirSync(t.config.mailOutboxDir);
      expect(statSync(join(t.config.mailOutboxDir, files[0])).mode & 0o777).toBe(0o600);
    });
  });

  describe('POST /auth/login and sessions', () => {
    it('issues a 7-day HS256 session token that resolves to the user', async () => {
      const account = await signupAccount(t, { name: 'Grace' });
      const res = await t.request('POST', '/auth/login', {
        body: { email: account.email, password: account.password },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 604800,
      });
      const claims = claimsOf(res.body.access_token);
      expect((claims.exp as number) - (claims.iat as number)).toBe(604800);
      expect(
        JSON.parse(Buffer.from(res.body.access_token.split('.')[0], 'base64url').toString()),
      ).toMatchObject({
        alg: 'HS256',
      });

      const me = await t.request('GET', '/v1/me', { token: res.body.access_token });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        organization: { id: account.orgId, name: 'Grace', is_operator: false },
        user: {
          id: account.userId,
          email: account.email,
          name: 'Grace',
          role: 'owner',
          email_verified: false,
        },
        auth: 'session',
      });
    });

    it('answers a wrong password and an unknown user with the same 401 invalid_credentials', async () => {
      const account = await signupAccount(t);
      const wrong = await t.request('POST', '/auth/login', {
        body: { email: account.email, password: 'wrong password!!' },
      });
      const unknown = await t.request('POST', '/auth/login', {
        body: { email: uniqueEmail('ghost'), password: 'wrong password!!' },
      });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body.error.code).toBe('invalid_credentials');
      expect({ ...wrong.body.error, request_id: '' }).toEqual({ ...unknown.body.error, request_id: '' });
    });

    it.each([
      ['missing password', { email: 'a@b.test' }],
      ['numeric e-mail', { email: 5, password: 'x' }],
      ['empty body', {}],
    ])('answers a login with %s with 422', async (_what, body) => {
      const res = await t.request('POST', '/auth/login', { body });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    });

    it('rejects tampered, alg-none, expired, forged and revoked-session tokens with 401', async () => {
      const account = await signupAccount(t);
      const token = await login(t, account.email, account.password);
      const [h, p, s] = token.split('.');
      const claims = claimsOf(token);

      const tamperedPayload = `${h}.${b64url({ ...claims, sub: 'usr_someone_else' })}.${s}`;
      const flippedSig = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`;
      const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`;
      const algNoneSigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.${s}`;
      const hs512 = forgeJwt({ alg: 'HS512', typ: 'JWT' }, claims);
      const expired = forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, iat: 1_000_000, exp: 1_000_100 });
      const otherSecret = forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims, 'a-different-secret');
      const unknownSession = forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, sid: 'ses_unknown' });

      for (const bad of [
        tamperedPayload,
        flippedSig,
        algNone,
        algNoneSigned,
        hs512,
        expired,
        otherSecret,
        unknownSession,
      ]) {
        const res = await t.request('GET', '/v1/me', { token: bad });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_session');
      }
      const garbage = await t.request('GET', '/v1/me', { token: 'not-a-credential' });
      expect(garbage.status).toBe(401);
      expect(garbage.body.error.code).toBe('invalid_api_key');
      const viaLegacyHeader = await t.request('GET', '/v1/me', { headers: { 'x-api-key': token } });
      expect(viaLegacyHeader.status).toBe(401);

      const stillValid = forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims);
      expect((await t.request('GET', '/v1/me', { token: stillValid })).status).toBe(200);
    });
  });

  describe('password reset', () => {
    it('answers forgot-password byte-for-byte the same whether or not the address exists', async () => {
      const account = await signupAccount(t);
      const known = await t.request('POST', '/auth/forgot-password', { body: { email: account.email } });
      const unknown = await t.request('POST', '/auth/forgot-password', {
        body: { email: uniqueEmail('nobody') },
      });
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      expect(known.text).toBe(unknown.text);
      expect(known.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
      expect(known.headers.get('content-length')).toBe(unknown.headers.get('content-length'));
      await waitForMail(t, account.email, /reset-password\?token=/);
    });

    it('resets the password with a single-use token, ends every session and keeps keys working', async () => {
      const account = await signupAccount(t);
      const sessionA = await login(t, account.email, account.password);
      const sessionB = await login(t, account.email, account.password);
      expect((await t.request('GET', '/v1/me', { token: sessionA })).status).toBe(200);

      await t.request('POST', '/auth/forgot-password', { body: { email: account.email } });
      const token = tokenFromMail(await waitForMail(t, account.email, /reset-password\?token=/));

      const tooShort = await t.request('POST', '/auth/reset-password', {
        body: { token, new_password: 'short' },
      });
      expect(tooShort.status).toBe(422);

      const newPassword = 'a brand new passphrase';
      const res = await t.request('POST', '/auth/reset-password', {
        body: { token, new_password: newPassword },
      });
      expect(res.status).toBe(200);

      for (const session of [sessionA, sessionB]) {
        const me = await t.request('GET', '/v1/me', { token: session });
        expect(me.status).toBe(401);
        expect(me.body.error.code).toBe('invalid_session');
      }
      const reused = await t.request('POST', '/auth/reset-password', {
        body: { token, new_password: newPassword },
      });
      expect(reused.status).toBe(400);
      expect(reused.body.error.code).toBe('invalid_token');

      expect(
        (
          await t.request('POST', '/auth/login', {
            body: { email: account.email, password: account.password },
          })
        ).status,
      ).toBe(401);
      expect(
        (await t.request('GET', '/v1/me', { token: await login(t, account.email, newPassword) })).status,
      ).toBe(200);
      expect((await t.request('GET', '/v1/me', { token: account.apiKey })).status).toBe(200);
    });

    it('refuses an unknown reset token with 400 invalid_token', async () => {
      const res = await t.request('POST', '/auth/reset-password', {
        body: { token: 'A'.repeat(43), new_password: 'long enough password' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_token');
    });

    it('writes no base64 body into the outbox', () => {
      for (const mail of outboxMessages(t)) {
        expect(mail).toMatch(/Content-Transfer-Encoding: (7bit|quoted-printable)/);
        expect(mail).toMatch(/token=[A-Za-z0-9_-]{43}/);
      }
    });
  });
});

describe('sign-up switched off', () => {
  it('answers 403 signup_disabled', async () => {
    const t = await startTestApp({ SERVICE_SIGNUP_ENABLED: 'false' });
    try {
      const res = await t.request('POST', '/auth/signup', {
        body: { email: uniqueEmail(), password: 'long enough password', name: 'N' },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('signup_disabled');
    } finally {
      await t.close();
    }
  });
});

describe('login throttling', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('throttles repeated failures per e-mail with 429 and Retry-After, even for the right password', async () => {
    const account = await signupAccount(t);
    for (let i = 0; i < 5; i += 1) {
      const res = await t.request('POST', '/auth/login', {
        body: { email: account.email, password: 'wrong password!!' },
      });
      expect(res.status).toBe(401);
    }
    const blocked = await t.request('POST', '/auth/login', {
      body: { email: account.email, password: account.password },
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('throttles repeated failures per client address across e-mails', async () => {
    let status = 0;
    for (let i = 0; i < 25 && status !== 429; i += 1) {
      status = (
        await t.request('POST', '/auth/login', {
          body: { email: uniqueEmail('spray'), password: 'guess guess guess' },
        })
      ).status;
    }
    expect(status).toBe(429);
    const account = await signupAccount(t);
    const res = await t.request('POST', '/auth/login', {
      body: { email: account.email, password: account.password },
    });
    expect(res.status).toBe(429);
  });
});

describe('sign-up throttle per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_SIGNUP_RATE_LIMIT: '3' });
  });
  afterAll(async () => {
    await t.close();
  });

  const signupFrom = (ip: string) =>
    requestFrom(t.baseUrl, ip, 'POST', '/auth/signup', {
      body: { email: uniqueEmail('burst'), password: 'correct horse battery', name: 'Burst' },
    });

  it('creates 3 organizations of a simultaneous burst from one address, refuses the rest, not other addresses', async () => {
    const burst = await Promise.all(Array.from({ length: 8 }, () => signupFrom('127.0.5.1')));
    expect(burst.filter((r) => r.status !== 201 && r.status !== 429).map((r) => [r.status, r.body])).toEqual(
      [],
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = burst.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0].body.error.code).toBe('rate_limited');
    expect(refused[0].body.error.message).toBe('Too many sign-ups from this address: retry later.');
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(3500);

    expect((await signupFrom('127.0.5.2')).status).toBe(201);
  });
});
