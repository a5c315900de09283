import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { AppConfig } from './config';

/** Creates the data dir (mode 0700) and the folders the daemon writes into, if missing. */
export function prepareDataDir(config: AppConfig): void {
  for (const dir of [config.dataDir, config.keysDir, config.runDir, config.datasetsDir, config.importDir]) {
    if (existsSync(dir)) continue;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
}
