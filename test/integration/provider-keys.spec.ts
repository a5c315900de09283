import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { Client } from 'pg';
import { SEALED_COLUMNS } from '../../src/cli/rekey';
import { keyId, SecretVault } from '../../src/common/crypto/secret-vault';
import { openDatabase, storeLocationOf, StoreOrm, WorkLeases } from '../../src/common/database';
import { dialectOf } from '../../src/common/database/dialect';
import { REPLICA_LOCK } from '../../src/common/database/replica-lock';
import { AppError } from '../../src/common/errors';
import { ProviderKeysService } from '../../src/modules/provider-keys/provider-keys.service';
import { WebhookSecretsService } from '../../src/modules/webhooks/webhook-secrets.service';
import { signupAccount } from '../factories/accounts';
import { CliResult, runBuiltCli } from '../support/decisionctl';
import { filesContaining } from '../support/grep-dir';
import { startTestApp, testStoreEnv, TestApp } from '../support/test-app';

const ON_POSTGRES = process.env.TEST_STORE === 'postgresql';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'ok';
}

/**
 * Every column of every table that can hold a secret, as each dialect lists them: SQLite's columns take any value,
 * PostgreSQL's text-like columns from information_schema.
 */
async function textColumns(orm: StoreOrm): Promise<{ table_name: string; column_name: string }[]> {
  const sql =
    dialectOf(orm.em.getPlatform()) === 'postgresql'
      ? `select table_name, column_name from information_schema.columns
          where table_schema = current_schema() and data_type in ('text', 'character varying', 'character', 'json', 'jsonb')
          order by table_name, column_name`
      : `select m.name as table_name, p.name as column_name from sqlite_master m join pragma_table_info(m.name) p
          where m.type = 'table' order by m.name, p.name`;
  return orm.em.fork().getConnection().execute(sql);
}

/** `table.column` of every cell, in every table of the store, whose text matches the LIKE `pattern`. */
async function cellsLike(orm: StoreOrm, pattern: string): Promise<string[]> {
  const cells: string[] = [];
  const connection = orm.em.fork().getConnection();
  for (const { table_name: table, column_name: column } of await textColumns(orm)) {
    const [{ n }] = await connection.execute<{ n: number | string }[]>(
      `select count(*) as n from "${table}" where cast("${column}" as text) like ?`,
      [pattern],
    );
    for (let i = 0; i < Number(n); i += 1) cells.push(`${table}.${column}`);
  }
  return cells;
}

/** Every value SEALED_COLUMNS lists, with what it is bound to: `table.column` and the row's associated data. */
async function sealedValues(orm: StoreOrm): Promise<{ cell: string; value: string; aad: string }[]> {
  const values: { cell: string; value: string; aad: string }[] = [];
  const connection = orm.em.fork().getConnection();
  for (const sealed of SEALED_COLUMNS) {
    const rows = await connection.execute<Record<string, unknown>[]>(
      `select * from ${sealed.table} where ${sealed.column} is not null order by ${sealed.primaryKey}`,
    );
    for (const row of rows) {
      values.push({
        cell: `${sealed.table}.${sealed.column}`,
        value: String(row[sealed.column]),
        aad: sealed.aad(row),
      });
    }
  }
  return values;
}

/**
 * The built `npm run rekey` (dist/cli/rekey.js) on a data dir's store, with only the given environment; or, with
 * `viaDecisiond`, the package's `decisiond rekey`, which reads the settings file first.
 */
function runRekey(
  args: readonly string[],
  env: Record<string, string>,
  input = '',
  viaDecisiond = false,
): Promise<CliResult> {
  return viaDecisiond
    ? runBuiltCli('decisiond.js', ['rekey', ...args], env, { input })
    : runBuiltCli('rekey.js', args, env, { input });
}

/** What the CLI needs to find a stopped test app's store: its data dir and, on PostgreSQL, its database. */
async function rekeyEnv(t: TestApp, oldKey: Buffer, newKey: Buffer): Promise<Record<string, string>> {
  return {
    ...(await testStoreEnv(t.dataDir)),
    SERVICE_DATA_DIR: t.dataDir,
    SERVICE_CONFIG_ENCRYPTION_KEY_OLD: oldKey.toString('base64'),
    SERVICE_CONFIG_ENCRYPTION_KEY_NEW: newKey.toString('base64'),
  };
}

describe('ProviderKeysService with the real database', () => {
  // On PostgreSQL the daemon refuses to start without the key (every replica must share it): no such state exists.
  (ON_POSTGRES ? it.skip : it)(
    'needs SERVICE_CONFIG_ENCRYPTION_KEY to store a key (409 encryption_key_required)',
    async () => {
      const t = await startTestApp();
      try {
        const service = t.app.get(ProviderKeysService);
        expect(await codeOf(service.set('org_1', 'openai', 'sk-live-123'))).toBe(
          '409 encryption_key_required',
        );
        expect(await service.list('org_1')).toEqual([]);
        expect(await codeOf(service.delete('org_1', 'openai'))).toBe('404 provider_key_not_found');
      } finally {
        await t.close();
      }
    },
  );

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

      expect(await codeOf(service.set('org_1', 'openai', 'x'.repeat(16 * 1024)))).toBe('ok');

      await service.delete('org_1', 'engine');
      expect(await codeOf(service.delete('org_1', 'engine'))).toBe('404 provider_key_not_found');
      expect((await service.list('org_1')).map((k) => k.backend)).toEqual(['openai']);

      for (const secret of [first, second, 'org-two-secret-0123456789', 'engine-secret-abcdef-0123456789']) {
        expect(filesContaining(t.dataDir, secret)).toEqual([]);
        expect(await cellsLike(t.app.get(MikroORM), `%${secret}%`)).toEqual([]);
      }
    } finally {
      await t.close();
    }
  });

  it('re-encrypts every sealed secret under a new key (npm run rekey), refusing a wrong old key', async () => {
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
    const env = await rekeyEnv(t, oldKey, newKey);
    const keysDir = join(t.dataDir, 'keys');
    // One webhook signing secret, one connector and one stored idempotent answer, moved together.
    const counts = (resealed: number, perOrg: number, alreadyNew: number, perOrgNew: number) => ({
      'provider_keys.sealed_secret': { resealed, already_new: alreadyNew },
      'webhook_signing_secrets.current_sealed': { resealed: perOrg, already_new: perOrgNew },
      'webhook_signing_secrets.previous_sealed': { resealed: 0, already_new: 0 },
      'connectors.config_sealed': { resealed: perOrg, already_new: perOrgNew },
      'idempotency_keys.response_sealed': { resealed: perOrg, already_new: perOrgNew },
    });
    const tablesOf = (result: CliResult) => {
      expect(result).toMatchObject({ status: 0, stderr: '' });
      const report = JSON.parse(result.stdout) as { database: string; tables: unknown };
      expect(report.database).toBe(ON_POSTGRES ? 'postgresql' : t.config.databaseFile);
      return report.tables;
    };

    const orm = await openDatabase(storeLocationOf(t.config));
    try {
      const before = await sealedValues(orm);
      expect(before).toHaveLength(5);

      const wrongOld = await runRekey([], {
        ...env,
        SERVICE_CONFIG_ENCRYPTION_KEY_OLD: randomBytes(32).toString('base64'),
      });
      expect(wrongOld.status).toBe(1);
      expect(wrongOld.stderr).toContain('not available');
      expect(tablesOf(await runRekey(['--dry-run'], env))).toEqual(counts(2, 1, 0, 0));
      expect(await sealedValues(orm)).toEqual(before);

      // As on a node: the store's settings from the environment file, the two keys on standard input.
      const envFile = join(t.dataDir, 'decision-service.env');
      const {
        SERVICE_CONFIG_ENCRYPTION_KEY_OLD: _old,
        SERVICE_CONFIG_ENCRYPTION_KEY_NEW: _new,
        ...settings
      } = env;
      writeFileSync(
        envFile,
        Object.entries(settings)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      );
      const keysOnStdin = `${oldKey.toString('base64')}\n${newKey.toString('base64')}\n`;
      expect(
        tablesOf(await runRekey(['--stdin'], { DECISION_SERVICE_ENV_FILE: envFile }, keysOnStdin, true)),
      ).toEqual(counts(2, 1, 0, 0));
      expect(tablesOf(await runRekey([], env))).toEqual(counts(0, 0, 2, 1));

      expect(await orm.em.fork().getConnection().execute('select count(*) as n from provider_keys')).toEqual([
        { n: ON_POSTGRES ? '2' : 2 },
      ]);
      const oldVault = new SecretVault({ configured: oldKey, keysDir });
      const newVault = new SecretVault({ configured: newKey, keysDir });
      const after = await sealedValues(orm);
      expect(after.map((v) => v.cell)).toEqual(before.map((v) => v.cell));
      for (const { value, aad } of after) {
        expect(() => oldVault.open(value, aad)).toThrow('not available');
      }
      expect(after.map(({ value, aad }) => newVault.open(value, aad))).toEqual(
        before.map(({ value, aad }) => oldVault.open(value, aad)),
      );
      // Whatever a module seals, rekey must move: no cell of any table is left under the old key, none in clear.
      expect(await cellsLike(orm, `sv1:${keyId(oldKey)}:%`)).toEqual([]);
      expect((await cellsLike(orm, `sv1:${keyId(newKey)}:%`)).length).toBeGreaterThanOrEqual(5);
      const rawKey = (created.body as { raw_key: string }).raw_key;
      for (const secret of ['rotate-me-secret', 'rotate-me-too', 'rotate-me-pg', webhookSecret, rawKey]) {
        expect(await cellsLike(orm, `%${secret}%`)).toEqual([]);
      }
    } finally {
      await orm.close(true);
    }

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

  // SQLite is one appliance, stopped before the rotation (docs/licensing.md); replicas share only PostgreSQL.
  (ON_POSTGRES ? it : it.skip)(
    'refuses to reseal on PostgreSQL while a replica runs, naming it',
    async () => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const t = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: oldKey.toString('base64') });
      let isClosed = false;
      try {
        await t.app.get(ProviderKeysService).set('org_1', 'openai', 'kept-under-the-old-key');
        const env = await rekeyEnv(t, oldKey, newKey);

        const refused = await runRekey([], env);
        expect(refused.status).toBe(1);
        expect(refused.stderr).toContain('1 replica(s) still run on this database');
        expect(refused.stderr).toContain(t.app.get(WorkLeases).owner);
        expect(refused.stderr).toContain('nothing was changed');
        // A dry run changes nothing, so it may check the old key beforehand, replicas running.
        expect((await runRekey(['--dry-run'], env)).status).toBe(0);
        expect(await t.app.get(ProviderKeysService).reveal('org_1', 'openai')).toBe('kept-under-the-old-key');

        await t.close(true);
        isClosed = true;
        const rotated = await runRekey([], env);
        expect(rotated).toMatchObject({ status: 0, stderr: '' });
        // A replica starting while rekey holds the lock waits for its commit rather than start on the old key.
        const rekeying = new Client({ connectionString: env.SERVICE_DATABASE_URL });
        await rekeying.connect();
        let restarted: TestApp | undefined;
        let started: TestApp;
        try {
          await rekeying.query('begin');
          await rekeying.query('select pg_advisory_xact_lock($1)', [REPLICA_LOCK]);
          const starting = startTestApp(
            { SERVICE_CONFIG_ENCRYPTION_KEY: newKey.toString('base64') },
            t.dataDir,
          ).then((app) => (restarted = app));
          await new Promise((r) => setTimeout(r, 1500));
          expect(restarted).toBeUndefined();
          await rekeying.query('commit');
          started = await starting;
        } finally {
          await rekeying.end();
        }
        try {
          expect(await started.app.get(ProviderKeysService).reveal('org_1', 'openai')).toBe(
            'kept-under-the-old-key',
          );
        } finally {
          await started.close();
        }
      } finally {
        if (!isClosed) await t.close();
      }
    },
  );
});
