import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decisionctl, freshHome } from '../support/decisionctl';

describe('decisionctl --help and bash completion', () => {
  const home = freshHome();
  afterAll(() => rmSync(home.root, { recursive: true, force: true }));

  it('--help names every command group, how to start and the exit codes', async () => {
    const help = await decisionctl(['--help'], home.env);
    expect(help.status).toBe(0);
    for (const command of [
      'login',
      'logout',
      'config',
      'whoami',
      'keys',
      'devices',
      'connectors',
      'data',
      'simulate',
      'jobs',
      'egress',
      'completion',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(help.stdout).toContain('decisionctl login --base-url');
    expect(help.stdout).toContain('78 configuration');
  });

  it('completion bash completes commands, subcommands and options in a real bash', async () => {
    const script = await decisionctl(['completion', 'bash'], home.env);
    expect(script.status).toBe(0);
    const file = join(home.root, 'decisionctl.bash');
    writeFileSync(file, script.stdout);
    const complete = (...words: string[]): string[] => {
      const line = ['decisionctl', ...words].map((w) => `'${w}'`).join(' ');
      const result = spawnSync(
        'bash',
        [
          '-c',
          `source '${file}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _decisionctl; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      );
      expect(result.stderr).toBe('');
      return result.stdout.trim().split(' ').filter(Boolean);
    };
    expect(complete('ke')).toEqual(['keys']);
    expect(complete('keys', '')).toEqual(expect.arrayContaining(['list', 'create', 'revoke']));
    expect(complete('keys', 'create', '--d')).toEqual(['--device-limit']);
    expect(complete('--format', 'json', 'data', 'q')).toEqual(['query']);
    expect(complete('config', 'set')).toEqual(['set-key']);

    expect((await decisionctl(['completion', 'fish'], home.env)).status).toBe(2);
  });
});
