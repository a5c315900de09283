import '../common/runtime/require-supported-node';
import { cpSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { APP_ROOT } from '../common/config';
import { collectBundledPackages } from './third-party-notices';

/** Files a running daemon never reads: source maps and type declarations (a third of node_modules). */
const UNUSED_AT_RUN_TIME = /(\.map|\.d\.[cm]?ts|\.tsbuildinfo)$/;

/** The same result as `npm prune --omit=dev` on a copy, without copying the development half first. */
function stage(dest: string): number {
  const { packages } = collectBundledPackages(APP_ROOT);
  let copied = 0;
  for (const path of packages.flatMap((p) => p.paths).sort()) {
    const from = join(APP_ROOT, path);
    cpSync(from, join(dest, path), {
      recursive: true,
      filter: (src) => src !== join(from, 'node_modules') && !UNUSED_AT_RUN_TIME.test(basename(src)),
    });
    copied++;
  }
  process.stdout.write(`staged ${copied} packages into ${join(dest, 'node_modules')}\n`);
  return 0;
}

const dest = process.argv[2];
if (!dest || !existsSync(dest)) {
  process.stderr.write('usage: node dist/cli/stage-modules.js <existing destination dir>\n');
  process.exitCode = 64;
} else {
  process.exitCode = stage(dest);
}
