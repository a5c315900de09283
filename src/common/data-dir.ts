import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { AppConfig } from './config';
import { AppLogger } from './logging';

const PRIVATE_DIR = 0o700;

// On a directory shared by PostgreSQL replicas another node's write in progress looks like a leftover.
const SHARED_ORPHAN_AGE_MS = 60 * 60 * 1000;

export function orphanAgeMs(config: Pick<AppConfig, 'databaseUrl'>): number {
  return config.databaseUrl === undefined ? 0 : SHARED_ORPHAN_AGE_MS;
}

// An existing dir looser than 0700 is tightened: at 0755 any local user could read the database. The import dir is only
// created; operators may share it.
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
