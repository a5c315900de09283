import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';

const cli = (name: string, args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli', `${name}.js`), ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });

describe('decisiond and decisionctl entry points', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ds-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('decisiond provision reads the settings file and creates the operator organization in its data dir', () => {
    const dataDir = join(dir, 'data');
    const envFile = join(dir, 'decision-service.env');
    writeFileSync(envFile, `# settings\nSERVICE_DATA_DIR=${dataDir}\nSERVICE_SIGNUP_ENABLED=false\n`);
    const run = cli(
      'decisiond',
      ['provision', '--org', 'Acme Ops', '--email', 'ops@acme.example.com', '--name', 'Ops'],
      {
        DECISION_SERVICE_ENV_FILE: envFile,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Operator organization "Acme Ops" created/);
    expect(run.stdout).toMatch(/^dsk_live_\S+$/m);
    expect(statSync(join(dataDir, 'service.sqlite')).mode & 0o077).toBe(0);

    const again = cli(
      'decisiond',
      ['provision', '--org', 'Other', '--email', 'x@acme.example.com', '--name', 'X'],
      {
        DECISION_SERVICE_ENV_FILE: envFile,
      },
    );
    expect(again.status).not.toBe(0);
  }, 120_000);

  it('decisiond --version names the version and, in a checkout, says it is no package: git HEAD, no SBOM', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim();
    const run = cli('decisiond', ['--version'], {});
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      `decision-service ${manifest.version}`,
      'build development (a source checkout, not a package)',
      `source commit ${head} (git HEAD; uncommitted changes are not reflected)`,
      'sbom none (npm run package writes one into the .deb)',
      `node ${process.versions.node}`,
    ]);
  }, 120_000);

  it('decisiond rejects an unknown command with usage and exit code 64', () => {
    const run = cli('decisiond', ['frobnicate'], {});
    expect(run.status).toBe(64);
    expect(run.stderr).toContain('unknown command "frobnicate"');
  }, 120_000);

  it('decisionctl egress render-systemd renders the configured rules; a bad rule exits non-zero', () => {
    const ok = cli('decisionctl', ['egress', 'render-systemd'], {
      SERVICE_EGRESS_ALLOW: '10.20.0.0/16,192.168.1.5:5432',
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout.split('\n').filter((l) => l.startsWith('IPAddressAllow='))).toEqual([
      'IPAddressAllow=10.20.0.0/16',
      'IPAddressAllow=192.168.1.5/32',
    ]);
    const output = join(dir, 'egress.conf');
    expect(cli('decisionctl', ['egress', 'render-systemd', '--output', output], {}).status).toBe(0);
    expect(statSync(output).isFile()).toBe(true);
    const bad = cli('decisionctl', ['egress', 'render-systemd'], { SERVICE_EGRESS_ALLOW: 'http://x' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('SERVICE_EGRESS_ALLOW');
  }, 120_000);

  it('decisionctl version names the service, the Node.js runtime, the native binaries and the build', () => {
    const run = cli('decisionctl', ['version'], {});
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^decision-service \d+\.\d+\.\d+\nnode 24\.\d+\.\d+ .*\nengine .*\nruntime .*\nbuild development .*\nsource commit [0-9a-f]{40} .*\nsbom none .*\n$/,
    );
  }, 120_000);
});
