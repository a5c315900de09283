import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rekey } from '../../src/cli/rekey';
import { keyId } from '../../src/common/crypto/secret-vault';
import { AppError } from '../../src/common/errors';
import { ProviderKeysService } from '../../src/modules/provider-keys/provider-keys.service';
import { WebhookSecretsService } from '../../src/modules/webhooks/webhook-secrets.service';
import { signupAccount } from '../factories/accounts';
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

/** `table.column` of every cell, in every table, that holds a value sealed under the key `kid`. */
function cellsSealedUnder(db: Database.Database, kid: string): string[] {
  const cells: string[] = [];
  const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as {
    name: string;
  }[];
  for (const { name } of tables) {
    const columns = db.prepare(`select name from pragma_table_info(?)`).all(name) as { name: string }[];
    for (const column of columns) {
      const hits = db
        .prepare(`select count(*) as n from "${name}" where cast("${column.name}" as text) like ?`)
        .get(`sv1:${kid}:%`) as { n: number };
      for (let i = 0; i < hits.n; i += 1) cells.push(`${name}.${column.name}`);
    }
  }
  return cells;
}

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
      expect(await codeOf(service.set('org_1', 'openai', 'x'.repeat(100 * 1024)))).toBe(
        '422 validation_failed',
      );
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

  it('re-encrypts every sealed secret under a new key (rekey), refusing a wrong old key', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const t = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: oldKey.toString('base64') });
    await t.app.get(ProviderKeysService).set('org_1', 'openai', 'rotate-me-secret');
    await t.app.get(ProviderKeysService).set('org_1', 'anthropic', 'rotate-me-too');
    const webhookSecret = await t.app.get(WebhookSecretsService).currentSecret('org_1');
    const account = await signupAccount(t);
    const createKey = (app: typeof t) =>
      app.request('POST', '/v1/api-keys', {
        token: account.apiKey,
        body: { label: 'made once' },
        headers: { 'idempotency-key': 'rotate-me-key' },
      });
    const created = await createKey(t);
    expect(created.status).toBe(201);
    const connector = await t.request('POST', '/v1/connectors', {
      token: account.apiKey,
      body: {
        name: 'rotated pg',
        connector_type: 'postgres',
        config: { host: '127.0.0.1', database: 'test', user: 'postgres', password: 'rotate-me-pg' },
      },
    });
    expect(connector.status).toBe(201);
    await t.close(true);
    const paths = { databaseFile: join(t.dataDir, 'service.sqlite'), keysDir: join(t.dataDir, 'keys') };
    // One webhook signing secret and one stored idempotent answer, moved together.
    const counts = (resealed: number, perOrg: number, alreadyNew: number, perOrgNew: number) => ({
      'provider_keys.sealed_secret': { resealed, already_new: alreadyNew },
      'webhook_signing_secrets.current_sealed': { resealed: perOrg, already_new: perOrgNew },
      'webhook_signing_secrets.previous_sealed': { resealed: 0, already_new: 0 },
      'connectors.config_sealed': { resealed: perOrg, already_new: perOrgNew },
      'idempotency_keys.response_sealed': { resealed: perOrg, already_new: perOrgNew },
    });

    await expect(rekey(paths, randomBytes(32), newKey, false)).rejects.toThrow('not available');
    expect(await rekey(paths, oldKey, newKey, true)).toEqual(counts(2, 1, 0, 0));
    expect(await rekey(paths, oldKey, newKey, false)).toEqual(counts(2, 1, 0, 0));
    expect(await rekey(paths, oldKey, newKey, false)).toEqual(counts(0, 0, 2, 1));

    const db = new Database(paths.databaseFile, { readonly: true });
    expect(db.prepare('select count(*) as n from provider_keys').get()).toEqual({ n: 2 });
    // Whatever a module seals, rekey must move: no cell of any table is left under the old key.
    expect(cellsSealedUnder(db, keyId(oldKey))).toEqual([]);
    expect(cellsSealedUnder(db, keyId(newKey)).length).toBeGreaterThanOrEqual(5);
    db.close();

    const restarted = await startTestApp(
      { SERVICE_CONFIG_ENCRYPTION_KEY: newKey.toString('base64') },
      t.dataDir,
    );
    try {
      expect(await restarted.app.get(ProviderKeysService).reveal('org_1', 'openai')).toBe('rotate-me-secret');
      expect(await restarted.app.get(ProviderKeysService).reveal('org_1', 'anthropic')).toBe('rotate-me-too');
      expect(await restarted.app.get(WebhookSecretsService).currentSecret('org_1')).toBe(webhookSecret);
      const reopened = await restarted.request('GET', `/v1/connectors/${connector.body.id as string}`, {
        token: account.apiKey,
      });
      expect(reopened.status).toBe(200);
      expect(reopened.body.config).toMatchObject({ host: '127.0.0.1', user: 'postgres' });
      const replayed = await createKey(restarted);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(created.body);
    } finally {
      await restarted.close();
    }
  });
});
