import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { AppConfig } from './config';
import { AppLogger } from './logging';

const PRIVATE_DIR = 0o700;

/**
 * How long a half-written file (a `.partial` build or upload, an uncatalogued version) must have been left alone
 * before a starting daemon removes it, when its directory is shared by PostgreSQL replicas: another node's write in
 * progress looks the same. Alone on SQLite, nothing else writes there and a start removes such files at once.
 */
const SHARED_ORPHAN_AGE_MS = 60 * 60 * 1000;

/** The age `SHARED_ORPHAN_AGE_MS` when replicas may share the directories, else 0: removed at once. */
export function orphanAgeMs(config: Pick<AppConfig, 'databaseUrl'>): number {
  return config.databaseUrl === undefined ? 0 : SHARED_ORPHAN_AGE_MS;
}

/**
 * Creates the data dir and the folders the daemon writes into, each 0700, and tightens an existing one that is
 * looser (a data dir made by hand or by an older version at 0755 would let any local user read the database).
 * The import dir is only created: operators may share it with the tools that drop files there.
 */
export function prepareDataDir(config: AppConfig, logger?: AppLogger): void {
  for (const dir of [config.dataDir, config.keysDir, config.runDir, config.datasetsDir]) {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
      chmodSync(dir, PRIVATE_DIR);
      continue;
    }
    const mode = statSync(dir).mode & 0o777;
    if ((mode & 0o077) === 0) continue;
    chmodSync(dir, PRIVATE_DIR);
    logger?.warn(
      {
        event: 'data_dir_permissions_tightened',
        path: dir,
        mode: mode.toString(8),
        now: PRIVATE_DIR.toString(8),
      },
      'a data directory was readable by others: tightened to 0700',
    );
  }
  if (!existsSync(config.importDir)) mkdirSync(config.importDir, { recursive: true, mode: PRIVATE_DIR });
}
