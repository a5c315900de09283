import '../common/runtime/require-supported-node';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { EntityManager } from '@mikro-orm/knex';
import { loadConfig } from '../common/config';
import { base64Key } from '../common/config/env-parsers';
import { keyId, SecretVault } from '../common/crypto/secret-vault';
import { openDatabase, storeLocationOf } from '../common/database';
import { dialectOf } from '../common/database/dialect';
import { REPLICA_APPLICATION_NAME, REPLICA_LOCK } from '../common/database/replica-lock';
import { connectorConfigAad } from '../modules/connectors/connector.entity';
import { idempotencyResponseAad } from '../modules/idempotency/idempotency-record.entity';
import { providerKeyAad } from '../modules/provider-keys/provider-key.entity';

// Every column sealed with the SecretVault must be listed in SEALED_COLUMNS: a value left out would be unreadable after
// the rotation.
interface SealedColumn {
  readonly table: string;
  readonly primaryKey: string;
  readonly column: string;
  readonly aad: (row: Record<string, unknown>) => string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'provider_keys',
    primaryKey: 'id',
    column: 'sealed_secret',
    aad: (row) => providerKeyAad(String(row.org_id), String(row.backend)),
  },
  {
    table: 'webhook_signing_secrets',
    primaryKey: 'org_id',
    column: 'current_sealed',
    aad: (row) => `webhook_signing_secrets:${String(row.org_id)}:current`,
  },
  {
    table: 'webhook_signing_secrets',
    primaryKey: 'org_id',
    column: 'previous_sealed',
    aad: (row) => `webhook_signing_secrets:${String(row.org_id)}:previous`,
  },
  {
    table: 'connectors',
    primaryKey: 'id',
    column: 'config_sealed',
    aad: (row) => connectorConfigAad(String(row.id)),
  },
  {
    table: 'idempotency_keys',
    primaryKey: 'id',
    column: 'response_sealed',
    aad: (row) => idempotencyResponseAad(String(row.id)),
  },
];

const keyParser = base64Key(32);

interface LiveReplica {
  readonly application_name: string;
  readonly client_addr: string | null;
  readonly backend_start: Date | string;
}

// Every running daemon holds REPLICA_LOCK shared; one still on the old key could not open what is resealed.
async function refuseUnderLiveReplicas(em: EntityManager): Promise<void> {
  const [{ held }] = await em.execute<{ held: boolean }[]>('select pg_try_advisory_xact_lock(?) as held', [
    REPLICA_LOCK,
  ]);
  if (held) return;
  // A one-number advisory lock is recorded as classid (high 32 bits, 0 here), objid (low 32 bits), objsubid 1.
  const replicas = await em.execute<LiveReplica[]>(
    `select a.application_name, host(a.client_addr) as client_addr, a.backend_start
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.classid = 0 and l.objid = ? and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())
      order by a.backend_start`,
    [REPLICA_LOCK],
  );
  const named = replicas.map((replica) => {
    const name = replica.application_name.replace(`${REPLICA_APPLICATION_NAME} `, '');
    const since = new Date(replica.backend_start).toISOString();
    return `${name} (from ${replica.client_addr ?? 'a local socket'}, since ${since})`;
  });
  throw new Error(
    `${named.length} replica(s) still run on this database: ${named.join(', ')}. ` +
      'Stop every replica before rotating the key (docs/scale-out.md, "Rotating the encryption key"); nothing was changed',
  );
}

function parseKey(raw: string | undefined, name: string): Buffer {
  const key = keyParser.parse(raw?.trim());
  if (!key) throw new Error(`${name} is missing: pass it in the environment or with --stdin`);
  return key;
}

function readKeys(fromStdin: boolean): { oldKey: Buffer; newKey: Buffer } {
  if (fromStdin) {
    const [oldRaw, newRaw] = readFileSync(0, 'utf8').split(/\r?\n/);
    return {
      oldKey: parseKey(oldRaw, 'the old key (line 1)'),
      newKey: parseKey(newRaw, 'the new key (line 2)'),
    };
  }
  return {
    oldKey: parseKey(process.env.SERVICE_CONFIG_ENCRYPTION_KEY_OLD, 'SERVICE_CONFIG_ENCRYPTION_KEY_OLD'),
    newKey: parseKey(process.env.SERVICE_CONFIG_ENCRYPTION_KEY_NEW, 'SERVICE_CONFIG_ENCRYPTION_KEY_NEW'),
  };
}

export async function rekey(
  paths: { databaseFile: string; databaseUrl?: string; keysDir: string },
  oldKey: Buffer,
  newKey: Buffer,
  dryRun: boolean,
): Promise<Record<string, { resealed: number; already_new: number }>> {
  // The old vault also holds the generated file key, so values sealed before a key was configured move too.
  const oldVault = new SecretVault({ configured: oldKey, keysDir: paths.keysDir });
  const newVault = new SecretVault({ configured: newKey, keysDir: paths.keysDir });
  const newId = keyId(newKey);
  const orm = await openDatabase(storeLocationOf(paths));
  const counts: Record<string, { resealed: number; already_new: number }> = {};
  try {
    await orm.em.fork().transactional(async (em) => {
      if (!dryRun && dialectOf(em.getPlatform()) === 'postgresql') await refuseUnderLiveReplicas(em);
      for (const sealed of SEALED_COLUMNS) {
        const count = { resealed: 0, already_new: 0 };
        counts[`${sealed.table}.${sealed.column}`] = count;
        const rows = await em.execute<Record<string, unknown>[]>(
          `select * from ${sealed.table} where ${sealed.column} is not null`,
        );
        for (const row of rows) {
          const value = String(row[sealed.column]);
          // A re-run after a completed rotation finds the values already under the new key.
          if (value.split(':')[1] === newId) {
            count.already_new += 1;
            continue;
          }
          const clear = oldVault.open(value, sealed.aad(row));
          if (!dryRun) {
            await em.execute(
              `update ${sealed.table} set ${sealed.column} = ? where ${sealed.primaryKey} = ?`,
              [newVault.seal(clear, sealed.aad(row)), row[sealed.primaryKey]],
            );
          }
          count.resealed += 1;
        }
      }
    });
  } finally {
    await orm.close(true);
  }
  return counts;
}

async function main(): Promise<void> {
  const program = new Command('rekey')
    .description('re-encrypt stored secrets from the old SERVICE_CONFIG_ENCRYPTION_KEY to a new one')
    .option('--stdin', 'read the old key (line 1) and the new key (line 2) from standard input')
    .option('--dry-run', 'check that every secret opens with the old key; change nothing')
    .parse(process.argv);
  const options = program.opts<{ stdin?: boolean; dryRun?: boolean }>();
  const { oldKey, newKey } = readKeys(options.stdin === true);
  if (oldKey.equals(newKey)) throw new Error('the old and the new key are the same');
  const config = loadConfig();
  const counts = await rekey(config, oldKey, newKey, options.dryRun === true);
  process.stdout.write(
    `${JSON.stringify({ database: config.databaseUrl ? 'postgresql' : config.databaseFile, dry_run: options.dryRun === true, new_key_id: keyId(newKey), tables: counts }, null, 2)}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`rekey: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
