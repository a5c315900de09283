import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** An npm package as staged: its install path under the application directory, e.g. `node_modules/a/node_modules/b`. */
export interface StagedNpmPackage {
  readonly path: string;
  readonly name: string;
  readonly version: string;
}

/** A file of the staged tree worth naming on its own: native code or a distribution archive. */
export interface StagedArtifact {
  /** Path under the staging root, as installed without the leading slash (`usr/lib/...`). */
  readonly path: string;
  readonly kind: 'native' | 'archive';
  readonly sha256: string;
}

const ARCHIVE = /\.(tgz|tar\.gz|whl|zip|jar)$/;
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

export function stagedNpmPackages(appDir: string): StagedNpmPackage[] {
  const found: StagedNpmPackage[] = [];
  const walk = (modulesDir: string): void => {
    if (!existsSync(modulesDir)) return;
    for (const entry of readdirSync(modulesDir).sort()) {
      const names = entry.startsWith('@')
        ? readdirSync(join(modulesDir, entry))
            .sort()
            .map((n) => `${entry}/${n}`)
        : [entry];
      for (const name of names) {
        const dir = join(modulesDir, name);
        const manifest = join(dir, 'package.json');
        if (!existsSync(manifest)) continue;
        const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
        found.push({ path: toPosix(relative(appDir, dir)), name, version: version ?? 'unknown' });
        walk(join(dir, 'node_modules'));
      }
    }
  };
  walk(join(appDir, 'node_modules'));
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function stagedArtifacts(stageRoot: string): StagedArtifact[] {
  const found: StagedArtifact[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!(dir === stageRoot && entry.name === 'DEBIAN')) walk(full);
        continue;
      }
      if (!entry.isFile()) continue;
      const kind = isElf(full) ? 'native' : ARCHIVE.test(entry.name) ? 'archive' : undefined;
      if (kind) found.push({ path: toPosix(relative(stageRoot, full)), kind, sha256: sha256File(full) });
    }
  };
  walk(stageRoot);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function isElf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(ELF_MAGIC);
  } finally {
    closeSync(fd);
  }
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
