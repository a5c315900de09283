import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/daemon-process';

const LOGGER = join(REPO_ROOT, 'dist', 'common', 'logging', 'logger.js');

/** Runs `script` in a node process with `createLogger` in scope; resolves with its stdout and exit code. */
function runWithLogger(
  script: string,
  until?: (stdout: string) => boolean,
): Promise<{ stdout: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    ['-e', `const { createLogger } = require(${JSON.stringify(LOGGER)});\n${script}`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (until?.(stdout)) child.kill('SIGKILL');
    });
    child.on('close', (code) => resolve({ stdout, code }));
  });
}

function events(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { event: unknown }).event);
}

describe('the batched stdout log destination (dist/)', () => {
  it('writes every line, in order, when the process exits without a flush', async () => {
    const { stdout, code } = await runWithLogger(
      `const logger = createLogger('info');
       for (let i = 0; i < 60; i++) logger.info({ event: 'line_' + i, token: 'do_not_log_me' }, 'x'.repeat(100));
       process.exit(3);`,
    );
    expect(code).toBe(3);
    expect(events(stdout)).toEqual(Array.from({ length: 60 }, (_, i) => `line_${i}`));
    expect(stdout).not.toContain('do_not_log_me');
  });

  it('writes a lone line while the process keeps running, with no flush and no exit', async () => {
    const { stdout } = await runWithLogger(
      `createLogger('info').info({ event: 'lone_line' }, 'one');
       setInterval(() => undefined, 1000);`,
      (out) => out.includes('\n'),
    );
    expect(events(stdout)).toEqual(['lone_line']);
  });
});
