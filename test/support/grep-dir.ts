import { spawnSync } from 'node:child_process';

/** Files under `dir` (binary included: SQLite, WAL, keys) that contain `needle` byte for byte. */
export function filesContaining(dir: string, needle: string): string[] {
  const result = spawnSync('grep', ['-rlaF', '--', needle, dir], { encoding: 'utf8' });
  if (result.status === 2) throw new Error(`grep failed: ${result.stderr}`);
  return result.stdout.split('\n').filter((l) => l !== '');
}
