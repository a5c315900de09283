import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ConnectorError } from './connector-error';

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' ? false : !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
}

/**
 * Resolves a user-given path (relative ones against the import dir) and allows it only when its real path, after
 * symlinks, is a regular file inside the import dir (DESIGN.md §8). Anything else is refused before any read.
 */
export async function confinedFile(
  importDir: string,
  requested: string,
  field = 'file_path',
): Promise<string> {
  if (requested.includes('\0')) throw new ConnectorError('path_not_allowed', `${field} is not a valid path.`);
  const root = await realpath(importDir).catch(() => resolve(importDir));
  const lexical = resolve(root, requested);
  if (!isInside(root, lexical) && !isInside(resolve(importDir), resolve(importDir, requested))) {
    throw new ConnectorError(
      'path_not_allowed',
      `${field} must be inside the import directory (SERVICE_IMPORT_DIR).`,
    );
  }
  let real: string;
  try {
    real = await realpath(resolve(importDir, requested));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ConnectorError('not_found', `${field} does not exist: ${requested}`);
    throw new ConnectorError('path_not_allowed', `${field} cannot be read: ${code ?? 'error'}`);
  }
  if (!isInside(root, real)) {
    throw new ConnectorError(
      'path_not_allowed',
      `${field} resolves (through a symbolic link) outside the import directory (SERVICE_IMPORT_DIR).`,
    );
  }
  const info = await stat(real);
  if (!info.isFile())
    throw new ConnectorError('invalid_config', `${field} is not a regular file: ${requested}`);
  return real;
}
