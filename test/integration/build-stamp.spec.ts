import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../..');
const realTsc = join(repoRoot, 'node_modules/.bin/tsc');

/**
 * scripts/build.sh run for real on a small checkout of its own: a TypeScript file, a native Makefile that copies a
 * file, and a `nest` on PATH that records each call before running the real compiler.
 */
function makeCheckout(root: string): void {
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(repoRoot, 'scripts/build.sh'), join(root, 'scripts/build.sh'));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'commonjs',
        target: 'ES2022',
        types: [],
        strict: true,
        outDir: 'dist',
        rootDir: 'src',
        incremental: true,
        tsBuildInfoFile: 'dist/.tsbuildinfo',
      },
    }),
  );
  writeFileSync(
    join(root, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', include: ['src'] }),
  );
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion": 3}\n');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/answer.ts'), 'export const answer = 41;\n');
  mkdirSync(join(root, 'native'));
  writeFileSync(join(root, 'native/tool.txt'), 'tool v1\n');
  writeFileSync(
    join(root, 'native/Makefile'),
    [
      'all: ../engine_build/tool',
      '\t@echo make >> ../calls.log',
      '../engine_build/tool: tool.txt',
      '\t@mkdir -p ../engine_build && cp tool.txt $@',
      '',
    ].join('\n'),
  );
  mkdirSync(join(root, 'bin'));
  // What nest-cli.json's tsc builder runs, without the Nest CLI's seconds per call.
  writeFileSync(
    join(root, 'bin/nest'),
    `#!/bin/sh\necho nest >> "${root}/calls.log"\nexec "${realTsc}" -p tsconfig.build.json\n`,
    {
      mode: 0o755,
    },
  );
}

describe('scripts/build.sh up-to-date stamp', () => {
  let root: string;

  function build(extraEnv: Record<string, string> = {}): {
    status: number | null;
    calls: string[];
    stderr: string;
  } {
    rmSync(join(root, 'calls.log'), { force: true });
    const result = spawnSync('bash', [join(root, 'scripts/build.sh')], {
      env: {
        PATH: `${join(root, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: root,
        ...extraEnv,
      },
      encoding: 'utf8',
    });
    const log = join(root, 'calls.log');
    const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return { status: result.status, calls, stderr: result.stderr };
  }

  const read = (path: string): string => readFileSync(join(root, path), 'utf8');

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ds-build-stamp-'));
    makeCheckout(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds a fresh checkout, then does nothing while nothing changed', () => {
    const first = build();
    expect(first).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(read('dist/answer.js')).toContain('answer = 41');
    expect(read('engine_build/tool')).toBe('tool v1\n');
    expect(first.stderr.split('\n').filter((line) => line.startsWith('build: '))).toEqual([
      'build: sources changed since the last build; building what is stale',
      'build: native engine and helpers (make -C native; a first build takes a few minutes)',
      'build: daemon and CLIs (nest build)',
      expect.stringMatching(/^build: done in \d+ s$/),
    ]);

    expect(build()).toMatchObject({ status: 0, calls: [], stderr: '' });
  });

  it('ignores a touch that leaves the content as it was', () => {
    writeFileSync(join(root, 'src/answer.ts'), read('src/answer.ts'));
    expect(build()).toMatchObject({ status: 0, calls: [] });
  });

  it('rebuilds when a source changes', () => {
    writeFileSync(join(root, 'src/answer.ts'), 'export const answer = 42;\n');
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(read('dist/answer.js')).toContain('answer = 42');
    expect(build().calls).toEqual([]);
  });

  it('rebuilds when a source is added and when one is deleted', () => {
    writeFileSync(join(root, 'src/extra.ts'), 'export const extra = true;\n');
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(read('dist/extra.js')).toContain('extra = true');

    unlinkSync(join(root, 'src/extra.ts'));
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(build().calls).toEqual([]);
  });

  it('rebuilds when a native source, a tsconfig or the lock file changes', () => {
    writeFileSync(join(root, 'native/tool.txt'), 'tool v2\n');
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(read('engine_build/tool')).toBe('tool v2\n');

    writeFileSync(
      join(root, 'tsconfig.build.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['src/'] }),
    );
    expect(build().calls).toEqual(['make', 'nest']);

    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion": 3, "packages": {}}\n');
    expect(build().calls).toEqual(['make', 'nest']);
    expect(build().calls).toEqual([]);
  });

  it('rebuilds when an output is deleted or changed', () => {
    unlinkSync(join(root, 'dist/answer.js'));
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(read('dist/answer.js')).toContain('answer = 42');

    unlinkSync(join(root, 'engine_build/tool'));
    expect(build().calls).toEqual(['make', 'nest']);
    expect(read('engine_build/tool')).toBe('tool v2\n');
    expect(build().calls).toEqual([]);
  });

  it('rebuilds when a compiler variable changes', () => {
    expect(build({ EXTRA_CXXFLAGS: '-g' })).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(build({ EXTRA_CXXFLAGS: '-g' }).calls).toEqual([]);
  });

  it('tries again after a failed build', () => {
    writeFileSync(join(root, 'src/answer.ts'), 'export const answer: number = "forty-two";\n');
    const failed = build();
    expect(failed.status).not.toBe(0);
    expect(failed.calls).toEqual(['make', 'nest']);
    expect(build().calls).toEqual(['make', 'nest']);

    writeFileSync(join(root, 'src/answer.ts'), 'export const answer = 43;\n');
    expect(build()).toMatchObject({ status: 0, calls: ['make', 'nest'] });
    expect(build().calls).toEqual([]);
  });
});
