import '../common/runtime/require-supported-node';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILD_INFO_FILE, BuildInfoFile } from '../common/build-info';
import { APP_ROOT } from '../common/config';
import { buildCycloneDx, LockEntry, NpmSbom } from './sbom/cyclonedx-document';
import { sha256File, stagedArtifacts, stagedNpmPackages } from './sbom/staged-tree';
import { bundledRuntime, licenseOf, RUNTIME_PACKAGE } from './third-party-notices';

const USAGE = `usage: node dist/cli/write-sbom.js --stage DIR --npm-sbom FILE --version DEB_VERSION --commit SHA --epoch SECONDS
  Writes DIR/usr/share/doc/<name>/sbom.cdx.json (CycloneDX 1.5) of the staged package tree DIR, from npm's own
  SBOM of the lock (npm sbom --sbom-format cyclonedx --omit dev --package-lock-only), and DIR/usr/lib/<name>/${BUILD_INFO_FILE}
  with the SBOM's SHA-256. Run by packaging/build-deb.sh once the tree is final.
`;

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      stage: { type: 'string' },
      'npm-sbom': { type: 'string' },
      version: { type: 'string' },
      commit: { type: 'string' },
      epoch: { type: 'string' },
    },
  });
  const { stage, version, commit, epoch } = values;
  const npmSbomFile = values['npm-sbom'];
  if (!stage || !npmSbomFile || !version || !commit || !epoch || !/^\d+$/.test(epoch)) {
    process.stderr.write(USAGE);
    return 64;
  }
  const manifest = JSON.parse(readFileSync(join(APP_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    description: string;
  };
  const lock = JSON.parse(readFileSync(join(APP_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const appPath = `usr/lib/${manifest.name}`;
  const sbomPath = `usr/share/doc/${manifest.name}/sbom.cdx.json`;
  const runtime = bundledRuntime(APP_ROOT, lock as Parameters<typeof bundledRuntime>[1]);
  const sbom = buildCycloneDx({
    product: {
      name: manifest.name,
      version,
      upstreamVersion: manifest.version,
      description: manifest.description,
      sourceCommit: commit,
      sourceDateEpoch: Number(epoch),
      architecture: 'amd64',
    },
    appPath,
    runtime: {
      path: `${appPath}/node/bin/node`,
      version: runtime.version,
      npmPackage: RUNTIME_PACKAGE,
      license: runtime.license,
    },
    npmSbom: JSON.parse(readFileSync(npmSbomFile, 'utf8')) as NpmSbom,
    lockPackages: lock.packages,
    npmPackages: stagedNpmPackages(join(stage, appPath)),
    licenseFromManifest: (pkg) => licenseOf({}, join(stage, appPath, pkg.path)),
    artifacts: stagedArtifacts(stage),
  });
  writeFileSync(join(stage, sbomPath), `${JSON.stringify(sbom, null, 2)}\n`);
  const info: BuildInfoFile = {
    package: manifest.name,
    package_version: version,
    source_commit: commit,
    source_date_epoch: Number(epoch),
    sbom_path: `/${sbomPath}`,
    sbom_sha256: sha256File(join(stage, sbomPath)),
  };
  writeFileSync(join(stage, appPath, BUILD_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  const components = (sbom.components as unknown[]).length;
  process.stdout.write(`wrote /${sbomPath} (${components} components, sha256 ${info.sbom_sha256})\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
