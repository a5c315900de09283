import { join } from 'node:path';

/**
 * The compiled file `name.js` beside the module in `dir`, which a worker thread or child process starts from: its
 * code is the build's, so stack traces map through its source map and coverage tools see it as any other file.
 */
export function compiledEntry(dir: string, name: string): string {
  return join(dir, `${name}.js`);
}
