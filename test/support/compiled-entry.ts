import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Stands in for src/common/runtime/compiled-entry.ts under ts-jest (jest.config.js maps it), where only the sources
 * sit beside the modules: a worker's entry is the build's file in dist/, which the jest run's global setup builds.
 */
export function compiledEntry(dir: string, name: string): string {
  const file = join(ROOT, 'dist', relative(join(ROOT, 'src'), dir), `${name}.js`);
  if (!existsSync(file)) throw new Error(`${file} is missing: build the daemon first (npm run -s build)`);
  return file;
}
