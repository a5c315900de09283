import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_ENTRY, REPO_ROOT, spawnDaemon, waitForStart } from '../support/daemon-process';
import { makeTempDir } from '../support/test-app';

/** The machines carry Debian's Node.js 20 as `/usr/bin/node`: the runtime the daemon must refuse. */
const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE)
  ? Number(spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout)
  : NaN;
const itWithOldNode = systemMajor < 24 ? it : it.skip;
if (!(systemMajor < 24))
  console.warn(`no Node.js older than 24 at ${SYSTEM_NODE}: the refusal test is skipped`);

describe('the daemon and its CLIs on the Node.js runtime', () => {
  itWithOldNode(
    'stop at once on an older runtime with a message naming it, before touching the data dir',
    () => {
      const dataDir = join(makeTempDir(), 'data');
      const entries = [
        [DAEMON_ENTRY, 'main'],
        [join(REPO_ROOT, 'dist/cli/decisiond.js'), 'decisiond'],
        [join(REPO_ROOT, 'dist/cli/decisionctl.js'), 'decisionctl'],
        [join(REPO_ROOT, 'dist/cli/provision.js'), 'provision'],
      ];
      for (const [entry, name] of entries) {
        const run = spawnSync(SYSTEM_NODE, [entry], {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          timeout: 30_000,
          env: { PATH: '/usr/bin:/bin', NODE_ENV: 'test', SERVICE_DATA_DIR: dataDir },
        });
        expect({ name, status: run.status, stdout: run.stdout }).toEqual({ name, status: 69, stdout: '' });
        expect(run.stderr).toContain(`${name}: Node.js v${systemMajor}.`);
        expect(run.stderr).toContain('is not supported: this build needs Node.js 24 or newer');
      }
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it('logs the runtime it runs on when it starts', async () => {
    const dataDir = makeTempDir();
    const daemon = spawnDaemon({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', ENGINE_POOL_SIZE: '1' });
    try {
      await waitForStart(daemon);
      const started = daemon
        .output()
        .split('\n')
        .find((line) => line.includes('"event":"daemon_started"'));
      expect((JSON.parse(started ?? '{}') as { node_version?: string }).node_version).toBe(process.version);
      expect(process.version).toMatch(/^v24\./);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
