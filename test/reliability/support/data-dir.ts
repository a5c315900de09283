import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0');
/** What a write in progress leaves: partial builds and uploads, staged renames, rollback journals. */
const TEMPORARY = /(\.partial(-journal|-wal|-shm)?|\.tmp|-journal)$/;

/** Every regular file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

function isSqliteFile(path: string): boolean {
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, header, 0, header.length, 0) === header.length && header.equals(SQLITE_MAGIC);
  } finally {
    closeSync(fd);
  }
}

/**
 * `PRAGMA integrity_check` of every SQLite database under the data dir, told apart by its header, not its name;
 * temporary files are left to `leftoverFiles`. A read-only file (a published dataset version) that was already
 * found sound is not checked again while its size, time and inode stay the same. `include` narrows the files looked
 * at (files another process is still writing, say).
 */
export class IntegrityChecker {
  private readonly sound = new Set<string>();
  checked = 0;

  problems(dataDir: string, include: (path: string) => boolean = () => true): string[] {
    const problems: string[] = [];
    for (const path of filesUnder(dataDir)) {
      if (!include(path) || TEMPORARY.test(path) || /-(wal|shm)$/.test(path) || !isSqliteFile(path)) continue;
      const stat = statSync(path);
      const identity = `${path} ${stat.ino} ${stat.size} ${stat.mtimeMs}`;
      if (this.sound.has(identity)) continue;
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        const rows = db.prepare('pragma integrity_check').all() as { integrity_check: string }[];
        const result = rows.map((r) => r.integrity_check).join('; ');
        this.checked++;
        if (result !== 'ok') problems.push(`${path}: ${result}`);
        else if ((stat.mode & 0o222) === 0) this.sound.add(identity);
      } finally {
        db.close();
      }
    }
    return problems;
  }
}

/** Temporary files under `dir` last written before `before` (ms): what an earlier, killed daemon left behind. */
export function leftoverFiles(dir: string, before: number): string[] {
  return filesUnder(dir).filter((path) => TEMPORARY.test(path) && statSync(path).mtimeMs < before);
}
