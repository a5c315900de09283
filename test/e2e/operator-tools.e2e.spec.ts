import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';

const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** npm script → the CLI it runs (src/cli/<name>.ts). */
const OPERATOR_TOOLS: Record<string, string> = {
  decisionctl: 'decisionctl',
  license: 'license',
  rekey: 'rekey',
  provision: 'provision',
  'verify-report': 'verify-report',
  'mcp:stdio': 'mcp-stdio',
  licenses: 'licenses',
};

function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, env: process.env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('operator tools from a checkout (npm run -s <tool>)', () => {
  beforeAll(() => {
    const build = run('bash', ['scripts/build.sh']);
    if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
  });

  it.each(Object.entries(OPERATOR_TOOLS))(
    '%s builds what is stale, then runs dist/cli/%s.js',
    (script, cli) => {
      expect(existsSync(join(REPO_ROOT, 'src/cli', `${cli}.ts`))).toBe(true);
      expect(scripts[script]).toBe(`bash scripts/build.sh && exec node dist/cli/${cli}.js`);
    },
  );

  it('runs decisionctl with its arguments, its stdout its own, without rebuilding an unchanged tree', () => {
    const stampBefore = statSync(join(REPO_ROOT, 'dist/.build-stamp')).mtimeMs;
    const buildInfoBefore = statSync(join(REPO_ROOT, 'dist/.tsbuildinfo')).mtimeMs;

    const viaNpm = run('npm', ['run', '-s', 'decisionctl', '--', 'version']);
    const direct = run(process.execPath, ['dist/cli/decisionctl.js', 'version']);

    expect(viaNpm.status).toBe(0);
    expect(viaNpm.stdout).toMatch(/^decision-service \d+\.\d+\.\d+\nnode 24\./);
    expect(viaNpm.stdout).toBe(direct.stdout);
    expect(statSync(join(REPO_ROOT, 'dist/.build-stamp')).mtimeMs).toBe(stampBefore);
    expect(statSync(join(REPO_ROOT, 'dist/.tsbuildinfo')).mtimeMs).toBe(buildInfoBefore);
  });
});
