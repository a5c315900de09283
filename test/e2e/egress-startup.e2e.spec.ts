import { rmSync } from 'node:fs';
import { spawnDaemon } from '../support/daemon-process';
import { makeTempDir } from '../support/test-app';

describe('egress policy at start', () => {
  it('stops the daemon on an invalid rule and names it', async () => {
    const dataDir = makeTempDir('ds-egress-start-');
    const daemon = spawnDaemon({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      SERVICE_EGRESS_ALLOW: 'hooks.example.com:443, 10.0.0.1/8',
    });
    const code = await daemon.exited;
    rmSync(dataDir, { recursive: true, force: true });
    expect(code).toBe(1);
    const line = daemon
      .output()
      .split('\n')
      .find((l) => l.includes('"event":"egress_policy_invalid"'));
    expect(line).toBeDefined();
    expect(line).toContain('10.0.0.1/8');
    expect(line).toContain('SERVICE_EGRESS_ALLOW');
  });
});
