import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './test-app';

/**
 * Whether the file system of the temporary dirs honours the immutable flag for a descriptor opened before it was set
 * (ext4 does and answers EPERM; tmpfs lets the write through), and whether we may set it (CAP_LINUX_IMMUTABLE). The
 * probe's dir is removed before jest goes on collecting.
 */
export function immutableFlagHolds(): boolean {
  if (process.platform !== 'linux') return false;
  const dir = makeTempDir('ds-immutable-probe-');
  const probe = join(dir, 'probe');
  const script = `exec 3>'${probe}' && chattr +i '${probe}' || exit 2; if echo x >&3; then r=1; else r=0; fi; chattr -i '${probe}'; exit $r`;
  try {
    return spawnSync('sh', ['-c', script]).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The immutable flag on a SQLite database and its `-wal`, set under whoever holds them open: every later write
 * through their descriptors fails (SQLite's `SQLITE_IOERR`), reads go on. It remembers whether the flag is set, so a
 * test's teardown clears it whatever failed before.
 */
export class ImmutableDatabase {
  private isSet = false;

  constructor(private readonly database: string) {}

  set(on: boolean): void {
    const files = [this.database, `${this.database}-wal`].filter((f) => existsSync(f));
    const result = spawnSync('chattr', [on ? '+i' : '-i', ...files]);
    if (result.status !== 0) throw new Error(`chattr: ${result.stderr.toString()}`);
    this.isSet = on;
  }

  clear(): void {
    if (this.isSet) this.set(false);
  }
}
