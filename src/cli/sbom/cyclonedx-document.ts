import { createHash } from 'node:crypto';
import { StagedArtifact, StagedNpmPackage } from './staged-tree';

/** The parts of a CycloneDX 1.5 component this SBOM writes (https://cyclonedx.org/docs/1.5/json/). */
export interface CdxComponent {
  'bom-ref': string;
  type: 'application' | 'library' | 'file' | 'platform';
  name: string;
  version?: string;
  description?: string;
  purl?: string;
  cpe?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: ({ license: { id?: string; name?: string } } | { expression: string })[];
  externalReferences?: unknown[];
  properties?: { name: string; value: string }[];
  components?: CdxComponent[];
  scope?: string;
}

interface CdxDependency {
  ref: string;
  dependsOn?: string[];
}

export interface NpmSbom {
  readonly metadata: {
    readonly tools?: readonly { readonly name?: string; readonly version?: string }[];
    readonly component: { readonly 'bom-ref': string };
  };
  readonly components: readonly CdxComponent[];
  readonly dependencies?: readonly CdxDependency[];
}

export interface LockEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly license?: string;
  readonly dev?: boolean;
}

export interface SbomInputs {
  readonly product: {
    readonly name: string;
    readonly version: string;
    readonly upstreamVersion: string;
    readonly description: string;
    readonly sourceCommit: string;
    readonly sourceDateEpoch: number;
    readonly architecture: string;
  };
  readonly appPath: string;
  readonly runtime: {
    readonly path: string;
    readonly version: string;
    readonly npmPackage: string;
    readonly license: string;
  };
  readonly npmSbom: NpmSbom;
  readonly lockPackages: Readonly<Record<string, LockEntry>>;
  readonly npmPackages: readonly StagedNpmPackage[];
  /** License of a staged package the lock does not record, read from its own package.json. */
  readonly licenseFromManifest: (pkg: StagedNpmPackage) => string;
  readonly artifacts: readonly StagedArtifact[];
}

const PATH_PROPERTY = 'cdx:npm:package:path';
const INSTALLED_PROPERTY = 'decision-service:installed_path';

/** Deterministic: the time is SOURCE_DATE_EPOCH, the serial number a digest of the content, every list sorted. */
export function buildCycloneDx(inputs: SbomInputs): Record<string, unknown> {
  const { product } = inputs;
  const rootRef = `pkg:deb/${product.name}@${product.version}?arch=${product.architecture}`;
  const runtime = runtimeComponent(inputs);
  const npm = npmComponents(inputs);
  const claimed = new Set([inputs.runtime.path, ...npm.flatMap((c) => (c.components ?? []).map(pathOf))]);
  const shipped = inputs.artifacts
    .filter((a) => !claimed.has(a.path))
    .map((a) => artifactComponent(a, product));
  const components = [runtime, ...npm, ...shipped].sort(byRef);
  const document = {
    $schema: 'http://cyclonedx.org/schema/bom-1.5.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: '',
    version: 1,
    metadata: {
      timestamp: new Date(product.sourceDateEpoch * 1000).toISOString(),
      lifecycles: [{ phase: 'build' }],
      tools: { components: toolComponents(inputs) },
      component: {
        'bom-ref': rootRef,
        type: 'application',
        name: product.name,
        version: product.version,
        description: product.description,
        purl: rootRef,
        properties: [
          { name: 'decision-service:source_commit', value: product.sourceCommit },
          { name: 'decision-service:source_date_epoch', value: String(product.sourceDateEpoch) },
          { name: 'decision-service:upstream_version', value: product.upstreamVersion },
        ],
      },
    },
    components,
    dependencies: dependencies(inputs, rootRef, components, [runtime, ...shipped]),
  };
  document.serialNumber = `urn:uuid:${uuidFromDigest(JSON.stringify(document))}`;
  return document;
}

function runtimeComponent({ runtime, artifacts }: SbomInputs): CdxComponent {
  const file = artifacts.find((a) => a.path === runtime.path);
  if (!file) throw new Error(`the Node.js runtime ${runtime.path} is not in the staged tree`);
  return {
    'bom-ref': `pkg:generic/node@${runtime.version}`,
    type: 'platform',
    name: 'node',
    version: runtime.version,
    description: 'Node.js runtime (official Linux x64 build)',
    purl: `pkg:generic/node@${runtime.version}`,
    cpe: `cpe:2.3:a:nodejs:node.js:${runtime.version}:*:*:*:*:*:*:*`,
    hashes: [{ alg: 'SHA-256', content: file.sha256 }],
    licenses: [{ expression: runtime.license }],
    properties: [
      { name: INSTALLED_PROPERTY, value: `/${file.path}` },
      { name: 'decision-service:npm_package', value: `${runtime.npmPackage}@${runtime.version}` },
    ],
  };
}

function npmComponents(inputs: SbomInputs): CdxComponent[] {
  const fromNpm = new Map(inputs.npmSbom.components.map((c) => [c['bom-ref'], c]));
  const groups = new Map<string, { pkg: StagedNpmPackage; paths: string[] }>();
  for (const pkg of inputs.npmPackages) {
    const ref = `${pkg.name}@${pkg.version}`;
    const known = groups.get(ref);
    if (known) known.paths.push(pkg.path);
    else groups.set(ref, { pkg, paths: [pkg.path] });
  }
  return [...groups.entries()].map(([ref, { pkg, paths }]) => {
    const lock = inputs.lockPackages[pkg.path];
    if (!lock) throw new Error(`${pkg.path} is staged but not in package-lock.json`);
    if (lock.dev) throw new Error(`${pkg.path} is staged but is a development dependency`);
    const npm = fromNpm.get(ref);
    const hashes = npm?.hashes?.length ? npm.hashes : hashesOfIntegrity(lock.integrity);
    const licenses = npm?.licenses?.length
      ? npm.licenses
      : [{ expression: lock.license ?? inputs.licenseFromManifest(pkg) }];
    const files = paths.flatMap((path) =>
      inputs.artifacts.filter((a) => ownerOf(inputs, a.path) === path).map(nestedFile),
    );
    return {
      'bom-ref': ref,
      type: 'library',
      name: pkg.name,
      version: pkg.version,
      ...(npm?.description ? { description: npm.description } : {}),
      purl: npm?.purl ?? npmPurl(pkg.name, pkg.version),
      ...(hashes.length > 0 ? { hashes } : {}),
      licenses,
      ...(npm?.externalReferences?.length ? { externalReferences: npm.externalReferences } : {}),
      properties: paths.map((path) => ({ name: PATH_PROPERTY, value: path })),
      ...(files.length > 0 ? { components: files.sort(byRef) } : {}),
    };
  });
}

/** The npm package path (under the application directory) a staged file belongs to: the deepest one holding it. */
function ownerOf(inputs: SbomInputs, path: string): string | undefined {
  const prefix = `${inputs.appPath}/`;
  if (!path.startsWith(prefix)) return undefined;
  const inApp = path.slice(prefix.length);
  const cut = inApp.lastIndexOf('node_modules/');
  if (cut < 0) return undefined;
  const rest = inApp.slice(cut + 'node_modules/'.length).split('/');
  const nameParts = rest[0].startsWith('@') ? 2 : 1;
  return inApp.slice(0, cut) + 'node_modules/' + rest.slice(0, nameParts).join('/');
}

function nestedFile(artifact: StagedArtifact): CdxComponent {
  return {
    'bom-ref': `file:/${artifact.path}`,
    type: 'file',
    name: artifact.path.slice(artifact.path.lastIndexOf('/') + 1),
    hashes: [{ alg: 'SHA-256', content: artifact.sha256 }],
    properties: [{ name: INSTALLED_PROPERTY, value: `/${artifact.path}` }],
  };
}

function artifactComponent(artifact: StagedArtifact, product: SbomInputs['product']): CdxComponent {
  const name = artifact.path.slice(artifact.path.lastIndexOf('/') + 1);
  const isLibrary = artifact.kind === 'native' && /\.(node|so(\.\d+)*)$/.test(name);
  return {
    ...nestedFile(artifact),
    type: artifact.kind === 'archive' ? 'file' : isLibrary ? 'library' : 'application',
    ...(artifact.kind === 'native' ? { version: product.upstreamVersion } : {}),
  };
}

function toolComponents({ npmSbom, product }: SbomInputs): CdxComponent[] {
  const npm = npmSbom.metadata.tools?.find((t) => t.name === 'cli' || t.name === 'npm');
  return [
    { 'bom-ref': 'tool:npm-sbom', type: 'application', name: 'npm sbom', version: npm?.version ?? 'unknown' },
    {
      'bom-ref': 'tool:write-sbom',
      type: 'application',
      name: `${product.name} packaging/build-deb.sh`,
      version: product.upstreamVersion,
    },
  ];
}

function dependencies(
  inputs: SbomInputs,
  rootRef: string,
  components: CdxComponent[],
  ownArtifacts: CdxComponent[],
): CdxDependency[] {
  const shipped = new Set(components.map((c) => c['bom-ref']));
  const npmRoot = inputs.npmSbom.metadata.component['bom-ref'];
  const graph = new Map<string, string[]>();
  for (const dep of inputs.npmSbom.dependencies ?? []) {
    const ref = dep.ref === npmRoot ? rootRef : dep.ref;
    if (ref !== rootRef && !shipped.has(ref)) continue;
    graph.set(
      ref,
      (dep.dependsOn ?? []).filter((d) => shipped.has(d)),
    );
  }
  const direct = graph.get(rootRef) ?? [];
  graph.set(rootRef, [...direct, ...ownArtifacts.map((c) => c['bom-ref'])]);
  for (const ref of shipped) if (!graph.has(ref)) graph.set(ref, []);
  return [...graph.entries()]
    .map(([ref, dependsOn]) => ({ ref, dependsOn: [...new Set(dependsOn)].sort() }))
    .sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

function hashesOfIntegrity(integrity: string | undefined): { alg: string; content: string }[] {
  const algorithms: Record<string, string> = {
    sha512: 'SHA-512',
    sha384: 'SHA-384',
    sha256: 'SHA-256',
    sha1: 'SHA-1',
  };
  return (integrity ?? '')
    .split(/\s+/)
    .map((part) => /^(sha\d+)-(.+)$/.exec(part))
    .filter((m): m is RegExpExecArray => m !== null && algorithms[m[1]] !== undefined)
    .map((m) => ({ alg: algorithms[m[1]], content: Buffer.from(m[2], 'base64').toString('hex') }));
}

function npmPurl(name: string, version: string): string {
  return `pkg:npm/${name.replace(/^@/, '%40')}@${encodeURIComponent(version)}`;
}

/** A name-based (version 5 layout) UUID from a digest of the document, so two builds of one tree share it. */
function uuidFromDigest(content: string): string {
  const bytes = createHash('sha256').update(content).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function pathOf(component: CdxComponent): string {
  return component['bom-ref'].slice('file:/'.length);
}

function byRef(a: CdxComponent, b: CdxComponent): number {
  return a['bom-ref'] < b['bom-ref'] ? -1 : a['bom-ref'] > b['bom-ref'] ? 1 : 0;
}
