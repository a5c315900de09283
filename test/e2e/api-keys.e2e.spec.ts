import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { createApiKey, login, signupAccount } from '../factories/accounts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

describe('API keys over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, lists (prefix only) and revokes keys; a revoked key is refused at once', async () => {
    const owner = await signupAccount(t);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await t.request('POST', '/v1/api-keys', {
      token: owner.apiKey,
      body: { label: 'ci runner', expires_at: expiresAt, device_limit: 0 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_/),
      label: 'ci runner',
      key_prefix: created.body.raw_key.slice(0, 12),
      role: 'member',
      device_limit: 0,
      raw_key: expect.stringMatching(/^dsk_live_[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
      expires_at: expiresAt,
      last_used_at: null,
    });
    const newKey = created.body.raw_key as string;

    const me = await t.request('GET', '/v1/me', { headers: { 'x-api-key': newKey } });
    expect(me.status).toBe(200);
    expect(me.body.key).toEqual({ id: created.body.id, label: 'ci runner', role: 'member' });

    const list = await t.request('GET', '/v1/api-keys', { token: newKey });
    expect(list.status).toBe(200);
    expect(list.body.keys.map((k: { id: string }) => k.id)).toEqual([owner.apiKeyId, created.body.id]);
    for (const key of list.body.keys) {
      expect(Object.keys(key).sort()).toEqual(
        [
          'created_at',
          'device_limit',
          'expires_at',
          'id',
          'key_prefix',
          'label',
          'last_used_at',
          'role',
        ].sort(),
      );
    }
    expect(list.text).not.toContain(newKey);
    expect(list.text).not.toContain(owner.apiKey);

    const revoked = await t.request('DELETE', `/v1/api-keys/${created.body.id}`, { token: owner.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, revoked: true });

    for (const headers of [{ authorization: `Bearer ${newKey}` }, { 'x-api-key': newKey }] as Record<
      string,
      string
    >[]) {
      const after = await t.request('GET', '/v1/me', { headers });
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('invalid_api_key');
    }
    const again = await t.request('DELETE', `/v1/api-keys/${created.body.id}`, { token: owner.apiKey });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('api_key_not_found');
    const listed = await t.request('GET', '/v1/api-keys', { token: owner.apiKey });
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([owner.apiKeyId]);
  });

  it('refuses a busy, cached key on the very next request after its revocation, and only that key', async () => {
    const owner = await signupAccount(t);
    const busy = await createApiKey(t, owner.apiKey, { role: 'viewer', label: 'busy' });
    const sibling = await createApiKey(t, owner.apiKey, { label: 'sibling' });
    const burst = () =>
      Promise.all(Array.from({ length: 16 }, () => t.request('GET', '/v1/me', { token: busy.rawKey })));
    expect((await burst()).map((r) => r.status)).toEqual(Array(16).fill(200));
    expect((await t.request('GET', '/v1/me', { token: sibling.rawKey })).body.key.label).toBe('sibling');
    // The role check still applies to a key answered from memory.
    const denied = await t.request('POST', '/v1/api-keys', { token: busy.rawKey, body: { label: 'nope' } });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_role']);

    const [inFlight, revoked] = await Promise.all([
      burst(),
      t.request('DELETE', `/v1/api-keys/${busy.id}`, { token: owner.apiKey }),
    ]);
    expect(revoked.status).toBe(200);
    for (const r of inFlight) expect([200, 401]).toContain(r.status);

    for (const headers of [
      { authorization: `Bearer ${busy.rawKey}` },
      { 'x-api-key': busy.rawKey },
    ] as Record<string, string>[]) {
      const after = await t.request('GET', '/v1/me', { headers });
      expect([after.status, after.body.error.code]).toEqual([401, 'invalid_api_key']);
    }
    expect((await burst()).map((r) => r.status)).toEqual(Array(16).fill(401));
    const stillThere = await t.request('GET', '/v1/me', { token: sibling.rawKey });
    expect([stillThere.status, stillThere.body.key.id]).toEqual([200, sibling.id]);
  });

  it('refuses to revoke the last active key with 400 cannot_revoke_last_key', async () => {
    const owner = await signupAccount(t);
    const res = await t.request('DELETE', `/v1/api-keys/${owner.apiKeyId}`, { token: owner.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('cannot_revoke_last_key');
    expect((await t.request('GET', '/v1/me', { token: owner.apiKey })).status).toBe(200);
  });

  it('lets exactly one of two concurrent revocations of the last two keys win', async () => {
    for (let round = 0; round < 5; round += 1) {
      const owner = await signupAccount(t);
      const second = await createApiKey(t, owner.apiKey, { role: 'owner' });
      const [a, b] = await Promise.all([
        t.request('DELETE', `/v1/api-keys/${owner.apiKeyId}`, { token: second.rawKey }),
        t.request('DELETE', `/v1/api-keys/${second.id}`, { token: owner.apiKey }),
      ]);
      expect([a, b].filter((r) => r.status === 200)).toHaveLength(1);
      // Each request presents the key the other revokes: the loser is refused as the last key when it was
      // authenticated before the winner committed, as a revoked key when after.
      const loser = [a, b].find((r) => r.status !== 200);
      expect([
        [400, 'cannot_revoke_last_key'],
        [401, 'invalid_api_key'],
      ]).toContainEqual([loser?.status, loser?.body.error.code]);
      const survivor = a.status === 200 ? second.rawKey : owner.apiKey;
      const list = await t.request('GET', '/v1/api-keys', { token: survivor });
      expect(list.body.keys).toHaveLength(1);
    }
  });

  it('answers 404 api_key_not_found for a key of another organization, and leaves it alone', async () => {
    const alice = await signupAccount(t);
    const bob = await signupAccount(t);
    await createApiKey(t, bob.apiKey);
    const res = await t.request('DELETE', `/v1/api-keys/${bob.apiKeyId}`, { token: alice.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('api_key_not_found');
    expect((await t.request('GET', '/v1/me', { token: bob.apiKey })).status).toBe(200);
    const unknown = await t.request('DELETE', '/v1/api-keys/key_does_not_exist', { token: alice.apiKey });
    expect(unknown.status).toBe(404);
  });

  it.each([
    ['a missing label', {}, 'label'],
    ['a numeric label', { label: 42 }, 'label'],
    ['an empty label', { label: '' }, 'label'],
    ['a label over 200 characters', { label: 'x'.repeat(201) }, 'label'],
    ['a past expires_at', { label: 'k', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['a malformed expires_at', { label: 'k', expires_at: 'tomorrow' }, 'expires_at'],
    ['a negative device_limit', { label: 'k', device_limit: -1 }, 'device_limit'],
    ['a fractional device_limit', { label: 'k', device_limit: 1.5 }, 'device_limit'],
    ['a string device_limit', { label: 'k', device_limit: '3' }, 'device_limit'],
    ['an unknown role', { label: 'k', role: 'superuser' }, 'role'],
    ['an unknown field', { label: 'k', scopes: ['all'] }, 'scopes'],
  ])('answers %s with 422 validation_failed', async (_what, body, field) => {
    const owner = await signupAccount(t);
    const res = await t.request('POST', '/v1/api-keys', { token: owner.apiKey, body });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts a 200-character label, and a non-object body is 422 or 400', async () => {
    const owner = await signupAccount(t);
    const ok = await t.request('POST', '/v1/api-keys', {
      token: owner.apiKey,
      body: { label: 'x'.repeat(200) },
    });
    expect(ok.status).toBe(201);
    const array = await t.request('POST', '/v1/api-keys', { token: owner.apiKey, body: [1, 2] });
    expect([400, 422]).toContain(array.status);
  });

  it('enforces roles: viewers cannot create keys, nobody creates a key above their own role', async () => {
    const owner = await signupAccount(t);
    const viewer = await createApiKey(t, owner.apiKey, { role: 'viewer' });
    const member = await createApiKey(t, owner.apiKey, { role: 'member' });
    const admin = await createApiKey(t, owner.apiKey, { role: 'admin' });

    const byViewer = await t.request('POST', '/v1/api-keys', { token: viewer.rawKey, body: { label: 'v' } });
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.code).toBe('insufficient_role');
    expect((await t.request('GET', '/v1/api-keys', { token: viewer.rawKey })).status).toBe(200);

    const escalate = await t.request('POST', '/v1/api-keys', {
      token: member.rawKey,
      body: { label: 'm', role: 'admin' },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('insufficient_role');
    expect(
      (await t.request('POST', '/v1/api-keys', { token: member.rawKey, body: { label: 'm' } })).status,
    ).toBe(201);
    expect(
      (await t.request('POST', '/v1/api-keys', { token: admin.rawKey, body: { label: 'a', role: 'owner' } }))
        .status,
    ).toBe(403);
    expect(
      (await t.request('POST', '/v1/api-keys', { token: admin.rawKey, body: { label: 'a', role: 'admin' } }))
        .status,
    ).toBe(201);

    const revokeOwner = await t.request('DELETE', `/v1/api-keys/${owner.apiKeyId}`, { token: member.rawKey });
    expect(revokeOwner.status).toBe(403);
    expect(revokeOwner.body.error.code).toBe('insufficient_role');
  });

  it('refuses a capped key used without device headers (binding fails closed)', async () => {
    const owner = await signupAccount(t);
    const capped = await createApiKey(t, owner.apiKey, { device_limit: 1 });
    expect(capped.body.device_limit).toBe(1);
    const res = await t.request('GET', '/v1/me', { token: capped.rawKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('device_binding_required');
  });

  it('refuses malformed keys and keys with a valid prefix but a wrong secret', async () => {
    const owner = await signupAccount(t);
    const wrongSecret = `${owner.apiKey.slice(0, -4)}${owner.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    for (const token of [
      wrongSecret,
      'dsk_live_short',
      `${owner.apiKey}x`,
      owner.apiKey.replace('_live_', '_test_'),
    ]) {
      const res = await t.request('GET', '/v1/me', { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    const noScheme = await t.request('GET', '/v1/me', { headers: { authorization: owner.apiKey } });
    expect(noScheme.status).toBe(401);
    const none = await t.request('GET', '/v1/me');
    expect(none.body.error.code).toBe('authentication_required');
  });

  it('stops accepting a key once expires_at has passed', async () => {
    const owner = await signupAccount(t);
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const key = await createApiKey(t, owner.apiKey, { expires_at: expiresAt });
    expect((await t.request('GET', '/v1/me', { token: key.rawKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now()) + 50));
    const res = await t.request('GET', '/v1/me', { token: key.rawKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    const list = await t.request('GET', '/v1/api-keys', { token: owner.apiKey });
    expect(list.body.keys.map((k: { id: string }) => k.id)).toEqual([owner.apiKeyId]);
  });

  it('lets a session create keys for its organization', async () => {
    const owner = await signupAccount(t);
    const session = await login(t, owner.email, owner.password);
    const created = await t.request('POST', '/v1/api-keys', {
      token: session,
      body: { label: 'from session', role: 'owner' },
    });
    expect(created.status).toBe(201);
    expect((await t.request('GET', '/v1/me', { token: created.body.raw_key })).body.organization.id).toBe(
      owner.orgId,
    );
  });

  it('refuses a label holding a NUL byte with 422 naming it, on every store (no 500, nothing stored)', async () => {
    const owner = await signupAccount(t);
    const label = 'ci\u0000runner \u0000';
    const created = await t.request('POST', '/v1/api-keys', { token: owner.apiKey, body: { label } });
    expect(created.status).toBe(422);
    expect(created.body.error.details).toEqual([
      { field: 'label', problem: 'contains the character U+0000, which no text in this API may hold' },
    ]);
    const list = await t.request('GET', '/v1/api-keys', { token: owner.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.keys.map((k: { label: string }) => k.label)).not.toContain(label);
  });
});

describe('audit log', () => {
  it('records key, login and sign-up events with actor, address and time, for admins of the org only', async () => {
    const t = await startTestApp();
    try {
      const owner = await signupAccount(t);
      const other = await signupAccount(t);
      const member = await createApiKey(t, owner.apiKey, { role: 'member', label: 'member key' });
      await t.request('DELETE', `/v1/api-keys/${member.id}`, { token: owner.apiKey });
      await login(t, owner.email, owner.password);
      await t.request('POST', '/auth/login', { body: { email: owner.email, password: 'not the password' } });

      const res = await t.request('GET', '/v1/audit-log', { token: owner.apiKey });
      expect(res.status).toBe(200);
      const events = res.body.events as Array<Record<string, any>>;
      expect(events.map((e) => e.event)).toEqual(
        expect.arrayContaining(['signup', 'key_created', 'key_revoked', 'login_succeeded', 'login_failed']),
      );
      const revoked = events.find((e) => e.event === 'key_revoked');
      expect(revoked).toMatchObject({
        org_id: owner.orgId,
        actor: { type: 'api_key', id: owner.apiKeyId },
        ip: '127.0.0.1',
        target: { type: 'api_key', id: member.id },
      });
      expect(new Date(revoked?.created_at).toISOString()).toBe(revoked?.created_at);
      expect(events.every((e) => e.org_id === owner.orgId || e.org_id === null)).toBe(true);
      expect(JSON.stringify(events)).not.toContain(other.orgId);
      expect(JSON.stringify(events)).not.toContain(owner.password);

      const times = events.map((e) => e.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      const limited = await t.request('GET', '/v1/audit-log?limit=2', { token: owner.apiKey });
      expect(limited.body.events).toHaveLength(2);
      const since = await t.request('GET', `/v1/audit-log?since=${encodeURIComponent(times[1])}`, {
        token: owner.apiKey,
      });
      expect(since.body.events.every((e: { created_at: string }) => e.created_at > times[1])).toBe(true);

      const bad = await t.request('GET', '/v1/audit-log?limit=0', { token: owner.apiKey });
      expect(bad.status).toBe(422);
      expect((await t.request('GET', '/v1/audit-log?since=yesterday', { token: owner.apiKey })).status).toBe(
        422,
      );

      const memberKey = await createApiKey(t, owner.apiKey, { role: 'member' });
      const denied = await t.request('GET', '/v1/audit-log', { token: memberKey.rawKey });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('insufficient_role');
    } finally {
      await t.close();
    }
  });
});

describe('persistence and secrecy of the data dir', () => {
  it('keeps users, keys and revocations across a restart, and stores no raw key or password', async () => {
    const dataDir = makeTempDir();
    let t = await startTestApp({}, dataDir);
    const owner = await signupAccount(t, { password: 'persistent passphrase 42' });
    const kept = await createApiKey(t, owner.apiKey, { label: 'kept' });
    const revoked = await createApiKey(t, owner.apiKey, { label: 'revoked' });
    expect((await t.request('DELETE', `/v1/api-keys/${revoked.id}`, { token: owner.apiKey })).status).toBe(
      200,
    );
    await t.close(true);

    t = await startTestApp({}, dataDir);
    try {
      expect((await t.request('GET', '/v1/me', { token: owner.apiKey })).status).toBe(200);
      expect((await t.request('GET', '/v1/me', { token: kept.rawKey })).status).toBe(200);
      const gone = await t.request('GET', '/v1/me', { token: revoked.rawKey });
      expect(gone.status).toBe(401);
      expect(gone.body.error.code).toBe('invalid_api_key');
      const session = await login(t, owner.email, 'persistent passphrase 42');
      expect((await t.request('GET', '/v1/me', { token: session })).body.user.email).toBe(owner.email);

      for (const file of filesUnder(dataDir)) {
        const content = readFileSync(file);
        for (const secret of [owner.apiKey, kept.rawKey, revoked.rawKey, owner.password]) {
          expect({ file, found: content.includes(secret) }).toEqual({ file, found: false });
        }
      }
      // Generated on one appliance; replicas on PostgreSQL are given them in the environment (no files).
      const generated = t.config.databaseUrl === undefined ? ['session-jwt.key', 'api-key-pepper.key'] : [];
      for (const name of generated) {
        expect(statSync(join(t.config.keysDir, name)).mode & 0o777).toBe(0o600);
      }
    } finally {
      await t.close();
    }
  });
});
