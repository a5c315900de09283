import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of the regular files under `dir`, at any depth; symlinks are not followed and a missing dir holds 0. */
export async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += await fileBytes(path);
  }
  return total;
}

export async function fileBytes(path: string): Promise<number> {
  try {
    return (await lstat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
