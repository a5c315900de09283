import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';

/** The SDK promises Node 20 (Debian's /usr/bin/node on these machines) and runs on the project's Node 24. */
const RUNTIMES = [
  { major: 20, node: process.env.SDK_TEST_NODE20 ?? '/usr/bin/node' },
  { major: 24, node: join(REPO_ROOT, 'node_modules', '.bin', 'node') },
];
const SDK_DIR = join(REPO_ROOT, 'sdk');
const TEST_DIR = join(SDK_DIR, 'dist-test', 'test');

function majorOf(node: string): number {
  const run = spawnSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' });
  return Number(run.stdout);
}

function runNodeTest(node: string, files: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(node, ['--test', '--test-reporter=tap', ...files], {
      cwd: SDK_DIR,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolveRun({ code, output }));
  });
}

describe("the SDK's own tests (sdk/test, node:test) against the built daemon", () => {
  let files: string[];

  beforeAll(() => {
    const compiled = spawnSync(
      join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
      ['-p', join(SDK_DIR, 'tsconfig.json')],
      {
        encoding: 'utf8',
      },
    );
    expect(compiled.stdout + compiled.stderr).toBe('');
    files = readdirSync(TEST_DIR)
      .filter((name) => name.endsWith('.test.js'))
      .map((name) => join(TEST_DIR, name));
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(RUNTIMES)(
    'pass on Node $major',
    async ({ major, node }) => {
      expect(majorOf(node)).toBe(major);
      const run = await runNodeTest(node, files);
      if (run.code !== 0) throw new Error(`node --test on Node ${major} failed:\n${run.output}`);
      expect(run.output).toMatch(/^# fail 0$/m);
      expect(run.output).toMatch(/^# pass [1-9]\d*$/m);
    },
    900_000,
  );
});
