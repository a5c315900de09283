import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyEnvFile, parseEnvFile } from '../../src/cli/env-file';

describe('settings file (systemd EnvironmentFile syntax)', () => {
  it('reads KEY=value lines, skips comments, unquotes, and never expands', () => {
    const values = parseEnvFile(
      [
        '# comment',
        '; also a comment',
        '',
        'SERVICE_HOST=127.0.0.1',
        '  SERVICE_PORT = 8080  ',
        'SERVICE_SMTP_URL="smtp://u:p$w@relay:25"',
        "SERVICE_MAIL_FROM='Ops <ops@x>'",
        'QUOTED="a \\"b\\" c"',
        'EMPTY=',
        'not a line',
        '1BAD=x',
      ].join('\n'),
    );
    expect(Object.fromEntries(values)).toEqual({
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '8080',
      SERVICE_SMTP_URL: 'smtp://u:p$w@relay:25',
      SERVICE_MAIL_FROM: 'Ops <ops@x>',
      QUOTED: 'a "b" c',
      EMPTY: '',
    });
  });

  it('fills only variables the environment does not set, and ignores a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-env-'));
    try {
      const file = join(dir, 'service.env');
      writeFileSync(file, 'SERVICE_PORT=8080\nSERVICE_HOST=127.0.0.1\n');
      const env: NodeJS.ProcessEnv = { DECISION_SERVICE_ENV_FILE: file, SERVICE_PORT: '0' };
      expect(applyEnvFile(env)).toBe(file);
      expect(env.SERVICE_PORT).toBe('0');
      expect(env.SERVICE_HOST).toBe('127.0.0.1');
      expect(applyEnvFile({ DECISION_SERVICE_ENV_FILE: join(dir, 'absent.env') })).toBeUndefined();
      expect(applyEnvFile({})).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
