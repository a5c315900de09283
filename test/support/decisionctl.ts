import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { documentsBody, expectMatchesContract } from './contract';
import { REPO_ROOT } from './daemon-process';
import { makeTempDir } from './test-app';

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A user's home for the CLI: HOME and the XDG folders inside one fresh temporary folder. */
export function freshHome(prefix = 'ds-cli-home-'): { root: string; env: Record<string, string> } {
  const root = makeTempDir(prefix);
  const env = {
    HOME: root,
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_RUNTIME_DIR: join(root, 'run'),
  };
  mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
  return { root, env };
}

/**
 * Runs the built `dist/cli/decisionctl.js` as a subprocess with only the given environment (plus PATH), so no
 * SERVICE_* variable or session bus of the test runner leaks in. Asynchronous: the daemon may live in this process.
 */
export function decisionctl(
  args: readonly string[],
  env: Record<string, string>,
  options: { input?: string; cwd?: string; onSpawn?: (pid: number) => void } = {},
): Promise<CliResult> {
  return runBuiltCli('decisionctl.js', args, env, { ...options, cwd: options.cwd ?? env.HOME });
}

/**
 * Runs a built CLI (`dist/cli/<script>`) as a subprocess with only the given environment (plus PATH), its stdin
 * `options.input`; resolves with its exit status and what it printed.
 */
export function runBuiltCli(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { input?: string; cwd?: string; onSpawn?: (pid: number) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', script), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    if (options.onSpawn && child.pid !== undefined) options.onSpawn(child.pid);
    child.stdin.end(options.input ?? '');
  });
}

/**
 * The CLI's `--format json` output is one JSON document (JSON.parse refuses anything more); where the contract
 * describes the answer of `operation`, it must validate against that schema.
 */
export function expectJsonOfContract(stdout: string, operation: string, status = 200): unknown {
  const body = JSON.parse(stdout) as unknown;
  if (documentsBody(operation, status)) {
    expectMatchesContract(
      {
        status,
        headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
        body,
        text: stdout,
      },
      operation,
    );
  }
  return body;
}
