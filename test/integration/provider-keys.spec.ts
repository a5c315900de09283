import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rekey } from '../../src/cli/rekey';
import { openSecret, sealSecret } from '../../src/common/crypto';
import { AppError } from '../../src/common/errors';
import { ProviderKeysService } from '../../src/modules/provider-keys/provider-keys.service';
import { filesContaining } from '../support/grep-dir';
import { startTestApp } from '../support/test-app';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'ok';
}

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips and binds the ciphertext to its associated data and key', () => {
    const sealed = sealSecret(key, 'sk-provider-secret', 'provider-key:o1:openai');
    expect(sealed).toMatch(/^sb1\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('sk-provider-secret');
    expect(openSecret(key, sealed, 'provider-key:o1:openai')).toBe('sk-provider-secret');
    expect(() => openSecret(key, sealed, 'provider-key:o2:openai')).toThrow(expect.objectContaining({ reason: 'tampered' }));
    expect(() => openSecret(randomBytes(32), sealed, 'provider-key:o1:openai')).toThrow(
      expect.objectContaining({ reason: 'wrong_key' }),
    );
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3], 'base64url');
    ct[0] ^= 1;
    parts[3] = ct.toString('base64url');
    expect(() => openSecret(key, parts.join('.'), 'provider-key:o1:openai')).toThrow(
      expect.objectContaining({ reason: 'tampered' }),
    );
    expect(sealSecret(key, 'same', 'aad')).not.toBe(sealSecret(key, 'same', 'aad'));
  });
});

describe('ProviderKeysService with the real database', () => {
  it('needs SERVICE_CONFIG_ENCRYPTION_KEY to store a key (409 encryption_key_required)', async () => {
    const t = await startTestApp();
    try {
      const service = t.app.get(ProviderKeysService);
      expect(await codeOf(service.set('org_1', 'openai', 'sk-live-123'))).toBe('409 encryption_key_required');
      expect(await service.list('org_1')).toEqual([]);
      expect(await codeOf(service.delete('org_1', 'openai'))).toBe('404 provider_key_not_found');
    } finally {
      await t.close();
    }
  });

  it('sets, rotates, lists, reveals and deletes, per organization, never in clear on disk', async () => {
    const encryptionKey = randomBytes(32);
    const t = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: encryptionKey.toString('base64') });
    try {
      const service = t.app.get(ProviderKeysService);
      const first = 'sk-first-0123456789-PROVIDER-SECRET';
      const second = 'sk-second-9876543210-PROVIDER-SECRET';
      await service.set('org_1', 'openai', first);
      await service.set('org_1', 'engine', 'engine-secret-abcdef-0123456789');
      await service.set('org_2', 'openai', 'org-two-secret-0123456789');
      await service.set('org_1', 'openai', second);

      const listed = await service.list('org_1');
      expect(listed.map((k) => k.backend)).toEqual(['engine', 'openai']);
      expect(await service.reveal('org_1', 'openai')).toBe(second);
      expect(await service.reveal('org_2', 'openai')).toBe('org-two-secret-0123456789');
      expect(await service.reveal('org_2', 'engine')).toBeUndefined();

      expect(await codeOf(service.set('org_1', 'openai', ''))).toBe('422 validation_failed');
      expect(await codeOf(service.set('org_1', 'openai', '   '))).toBe('422 validation_failed');
      expect(await codeOf(service.set('org_1', 'openai', 'x'.repeat(100 * 1024)))).toBe('422 validation_failed');
      expect(await codeOf(service.set('org_1', 'openai', 'x'.repeat(16 * 1024)))).toBe('ok');

      await service.delete('org_1', 'engine');
      expect(await codeOf(service.delete('org_1', 'engine'))).toBe('404 provider_key_not_found');
      expect((await service.list('org_1')).map((k) => k.backend)).toEqual(['openai']);

      for (const secret of [first, second, 'org-two-secret-0123456789', 'engine-secret-abcdef-0123456789']) {
        expect(filesContaining(t.dataDir, secret)).toEqual([]);
      }
    } finally {
      await t.close();
    }
  });

  it('re-encrypts every provider key under a new key (rekey), refusing a wrong old key', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const t = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: oldKey.toString('base64') });
    await t.app.get(ProviderKeysService).set('org_1', 'openai', 'rotate-me-secret');
    await t.app.get(ProviderKeysService).set('org_1', 'anthropic', 'rotate-me-too');
    await t.close(true);
    const databaseFile = join(t.dataDir, 'service.sqlite');

    await expect(rekey(databaseFile, randomBytes(32), newKey, false)).rejects.toThrow('different key');
    expect(await rekey(databaseFile, oldKey, newKey, true)).toEqual({ provider_keys: { resealed: 2, already_new: 0 } });
    expect(await rekey(databaseFile, oldKey, newKey, false)).toEqual({ provider_keys: { resealed: 2, already_new: 0 } });
    expect(await rekey(databaseFile, oldKey, newKey, false)).toEqual({ provider_keys: { resealed: 0, already_new: 2 } });

    const db = new Database(databaseFile, { readonly: true });
    expect(db.prepare('select count(*) as n from provider_keys').get()).toEqual({ n: 2 });
    db.close();

    const restarted = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: newKey.toString('base64') }, t.dataDir);
    try {
      expect(await restarted.app.get(ProviderKeysService).reveal('org_1', 'openai')).toBe('rotate-me-secret');
      expect(await restarted.app.get(ProviderKeysService).reveal('org_1', 'anthropic')).toBe('rotate-me-too');
    } finally {
      await restarted.close();
    }
  });
});
