import { Dirent, lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { orphanAgeMs } from '../../common/data-dir';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { orgFolderParents, orgUploadDirs } from './local-path';

export const SCRATCH_DIR_NAME = 'connector-scratch';

/**
 * `.<32 hex>_<safe name>.partial`: what ConnectorUploads writes before the rename. A finished upload never starts
 * with a dot, so one the user named `x.partial` is not taken for a leftover; operator files never match either.
 */
const UPLOAD_PARTIAL = /^\.[0-9a-f]{32}_[A-Za-z0-9._-]+\.partial$/;
const SCRATCH_OBJECT = /^object-[0-9a-f-]{36}$/;

function removeMatching(dir: string, pattern: RegExp, minAgeMs = 0): number {
  let removed = 0;
  for (const entry of entriesOf(dir)) {
    if (!entry.isFile() || !pattern.test(entry.name)) continue;
    const path = join(dir, entry.name);
    if (minAgeMs > 0) {
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats === undefined || Date.now() - stats.mtimeMs < minAgeMs) continue;
    }
    rmSync(path, { force: true });
    removed++;
  }
  return removed;
}

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function uploadDirs(importDir: string): string[] {
  const orgs = new Set(
    orgFolderParents(importDir).flatMap((parent) =>
      entriesOf(parent)
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    ),
  );
  return [...orgs].flatMap((org) => orgUploadDirs(importDir, org)).filter((dir) => isRealDirectory(dir));
}

// A killed daemon's half-written files are removed at start. On an import dir shared by PostgreSQL replicas another
// node's upload in progress looks the same, so there a partial upload is removed only after `orphanAgeMs`.
@Injectable()
export class LeftoverFileSweeper implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    let removed = 0;
    const minAgeMs = orphanAgeMs(this.config);
    for (const dir of uploadDirs(this.config.importDir))
      removed += removeMatching(dir, UPLOAD_PARTIAL, minAgeMs);
    removed += removeMatching(join(this.config.runDir, SCRATCH_DIR_NAME), SCRATCH_OBJECT);
    if (removed > 0) {
      this.logger.info(
        { event: 'leftover_files_removed', files: removed },
        'removed files left by a killed daemon',
      );
    }
  }
}
