import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConnectorError } from './connector-error';

/** What one organization may read under the import dir (DESIGN.md §8, docs/connectors.md "Files and uploads"). */
export interface ImportArea {
  readonly root: string;
  /** Paths relative to root (folders or single files) this organization may read; `''` is the whole import dir. */
  readonly readable: readonly string[];
}

export interface ImportGrant {
  readonly orgId: string;
  readonly path: string;
}

function orgFolder(orgId: string): string {
  return orgId.replace(/[^A-Za-z0-9_-]/g, '_');
}

const ORGS = 'orgs';
const UPLOADS = 'uploads';

export function orgImportDir(importDir: string, orgId: string): string {
  return join(importDir, ORGS, orgFolder(orgId));
}

export function orgUploadDir(importDir: string, orgId: string): string {
  return join(orgImportDir(importDir, orgId), UPLOADS);
}

export function orgUploadDirs(importDir: string, orgId: string): readonly string[] {
  return [orgUploadDir(importDir, orgId), join(importDir, UPLOADS, orgFolder(orgId))];
}

export function orgFolderParents(importDir: string): readonly string[] {
  return [join(importDir, ORGS), join(importDir, UPLOADS)];
}

export function importAreaFor(
  importDir: string,
  orgId: string,
  isOperator: boolean,
  grants: readonly ImportGrant[],
): ImportArea {
  if (isOperator) return { root: importDir, readable: [''] };
  return {
    root: importDir,
    readable: [
      join(ORGS, orgFolder(orgId)),
      join(UPLOADS, orgFolder(orgId)),
      ...grants.filter((grant) => grant.orgId === orgId).map((grant) => grant.path),
    ],
  };
}

async function realOrUndefined(path: string): Promise<string | undefined> {
  return realpath(path).catch(() => undefined);
}

/**
 * Checked as written and after symlinks. An absent file and a forbidden one are refused alike, naming no path, so
 * nobody learns what others hold.
 */
export async function confinedFile(
  area: ImportArea,
  requested: string,
  field = 'file_path',
): Promise<string> {
  const real = await confinedPath(area, requested, `${field} does not name a file`);
  const info = await stat(real);
  if (!info.isFile()) throw new ConnectorError('invalid_config', `${field} is not a regular file.`);
  return real;
}

export async function confinedDirectory(
  area: ImportArea,
  requested: string,
  field = 'path',
): Promise<string> {
  const real = await confinedPath(area, requested, `${field} does not name a folder`);
  const info = await stat(real);
  if (!info.isDirectory()) throw new ConnectorError('invalid_config', `${field} is not a folder.`);
  return real;
}

async function confinedPath(area: ImportArea, requested: string, what: string): Promise<string> {
  const refused = (): ConnectorError =>
    new ConnectorError(
      'path_not_allowed',
      `${what} this organization may read in the import directory (SERVICE_IMPORT_DIR).`,
    );
  if (requested.includes('\0')) throw refused();
  const realRoot = (await realOrUndefined(area.root)) ?? resolve(area.root);
  const lexical = resolve(area.root, requested);
  const candidates = area.readable.filter(
    (entry) => isWithin(resolve(area.root, entry), lexical) || isWithin(join(realRoot, entry), lexical),
  );
  if (candidates.length === 0) throw refused();
  const real = await realOrUndefined(lexical);
  if (real === undefined || !isWithin(realRoot, real)) throw refused();
  for (const entry of candidates) {
    const realEntry = await realOrUndefined(join(realRoot, entry));
    if (realEntry !== undefined && isWithin(realEntry, real)) return real;
  }
  throw refused();
}

export function isWithin(parent: string, candidate: string): boolean {
  const rel = relative(parent, candidate);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}
