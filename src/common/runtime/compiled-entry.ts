import { join } from 'node:path';

/** The compiled `name.js` beside the module, for a worker or child to start from (source maps and coverage apply). */
export function compiledEntry(dir: string, name: string): string {
  return join(dir, `${name}.js`);
}
