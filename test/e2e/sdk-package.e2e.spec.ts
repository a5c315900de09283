import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonProcess, REPO_ROOT, spawnDaemon, waitForStart } from '../support/daemon-process';

/** Users install the SDK with the Node they have: Debian's Node 20 on these machines. */
const USER_NODE_DIR = '/usr/bin';
const run = (cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, ...options });

function mustSucceed(result: ReturnType<typeof run>, what: string): string {
  if (result.status !== 0)
    throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The quick start of docs/sdk.md, exactly as printed, with the reader's two values filled in. */
function quickStartScript(baseURL: string, apiKey: string): string {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'sdk.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/sdk.md has no sh block under "## Quick start"');
  expect(block).toContain('export SERVICE_BASE_URL=http://127.0.0.1:8080\n');
  expect(block).toContain('export SERVICE_API_KEY=<your API key>\n');
  return block
    .replace('export SERVICE_BASE_URL=http://127.0.0.1:8080', `export SERVICE_BASE_URL=${baseURL}`)
    .replace('export SERVICE_API_KEY=<your API key>', `export SERVICE_API_KEY=${apiKey}`);
}

describe('the SDK tarball (npm run package)', () => {
  const work = mkdtempSync(join(tmpdir(), 'ds-sdk-package-'));
  const project = join(work, 'project');
  let tarball = '';
  let daemon: DaemonProcess;
  let baseURL = '';
  let apiKey = '';

  beforeAll(async () => {
    tarball = mustSucceed(
      run('bash', ['packaging/pack-sdk.sh', join(work, 'out')], { cwd: REPO_ROOT }),
      'pack-sdk',
    ).trim();
    daemon = spawnDaemon({ SERVICE_PORT: '0', SERVICE_DATA_DIR: join(work, 'data'), ENGINE_POOL_SIZE: '1' });
    baseURL = await waitForStart(daemon);
    const signup = await fetch(`${baseURL}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'quickstart@sdk.test',
        password: 'correct horse battery staple',
        name: 'Quick',
      }),
    });
    apiKey = ((await signup.json()) as { api_key: { raw_key: string } }).api_key.raw_key;
  }, 600_000);

  afterAll(async () => {
    if (daemon?.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('holds only the built package: no sources, no tests', () => {
    const listing = mustSucceed(run('tar', ['tzf', tarball]), 'tar tzf')
      .trim()
      .split('\n');
    expect(tarball.endsWith('/decision-service-sdk-0.1.0.tgz')).toBe(true);
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.mjs',
        'package/dist/index.d.ts',
      ]),
    );
    expect(
      listing.filter(
        (path) => !/^package\/(package\.json|README\.md|dist\/.+\.(js|mjs|d\.ts|d\.mts))$/.test(path),
      ),
    ).toEqual([]);
  });

  it('installs offline into an empty folder with nothing else, and the quick start of docs/sdk.md runs on Node 20', () => {
    const env = {
      PATH: `${USER_NODE_DIR}:/usr/local/bin:/bin`,
      HOME: work,
      npm_config_cache: join(work, 'npm-cache'),
    };
    mustSucceed(run('mkdir', ['-p', project]), 'mkdir');
    mustSucceed(
      run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project, env }),
      'npm install',
    );
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@decision-service',
    ]);

    writeFileSync(join(work, 'quickstart.sh'), quickStartScript(baseURL, apiKey));
    const output = mustSucceed(
      run('bash', ['-e', join(work, 'quickstart.sh')], { cwd: project, env }),
      'quick start',
    );
    expect(output).toContain('organization: Quick');
    expect(output).toMatch(/^(proceed|do_nothing) -?\d+(\.\d+)? (pool|subprocess_fallback)$/m);
    expect(mustSucceed(run('node', ['--version'], { env }), 'node --version')).toMatch(/^v20\./);
  });

  it('loads through require and import, with the class as the default export and DecisionClient as its alias', () => {
    const env = { PATH: `${USER_NODE_DIR}:/bin` };
    const cjs = run(
      'node',
      [
        '-e',
        "const s = require('@decision-service/sdk'); console.log(typeof s.DecisionService, s.DecisionClient === s.DecisionService, s.default === s.DecisionService)",
      ],
      { cwd: project, env },
    );
    expect(mustSucceed(cjs, 'require').trim()).toBe('function true true');
    const esm = run(
      'node',
      [
        '--input-type=module',
        '-e',
        "import D, { DecisionService, DecisionClient, verifyWebhook } from '@decision-service/sdk'; console.log(D === DecisionService, DecisionClient === DecisionService, typeof verifyWebhook)",
      ],
      { cwd: project, env },
    );
    expect(mustSucceed(esm, 'import').trim()).toBe('true true function');
  });
});
