import { spawnSync } from 'node:child_process';
import { readdirSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  DaemonProcess,
  REPO_ROOT,
  spawnDaemon,
  waitForLogEvent,
  waitForStart,
} from '../support/daemon-process';
import { httpRequest, makeTempDir } from '../support/test-app';

// Real processes on a shared machine: start-up can take seconds under load.
jest.setTimeout(90_000);

/** Every entry under run/ (sockets and their directories), as paths relative to it. */
function runDirEntries(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'run'), { recursive: true, encoding: 'utf8' }).sort();
}

describe('one daemon per data dir', () => {
  const daemons: DaemonProcess[] = [];
  afterAll(() => {
    for (const d of daemons)
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
  });
  const start = (dataDir: string): DaemonProcess => {
    const daemon = spawnDaemon({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      ENGINE_POOL_SIZE: '1',
      SERVICE_RUNTIME_SUPERVISE: 'true',
    });
    daemons.push(daemon);
    return daemon;
  };

  it('refuses a second daemon naming the holder, leaves its sockets, and frees the dir when the holder dies', async () => {
    const dataDir = makeTempDir('ds-lock-');
    const first = start(dataDir);
    const address = await waitForStart(first);
    const { socket } = (await waitForLogEvent(first, 'runtime_library_started')) as { socket: string };
    const sockets = runDirEntries(dataDir);
    expect(sockets).toContain(relative(join(dataDir, 'run'), socket));

    // Through another path to the same directory.
    const alias = join(makeTempDir('ds-lock-alias-'), 'data');
    symlinkSync(dataDir, alias);
    const second = start(alias);
    const started = waitForStart(second).then(
      () => 'started',
      () => 'exited',
    );
    expect(await Promise.race([second.exited, started])).toBe(1);
    const refusal = second
      .output()
      .split('\n')
      .find((line) => line.includes('"event":"data_dir_locked"'));
    expect(refusal).toBeDefined();
    expect(JSON.parse(refusal!)).toMatchObject({ holder_pid: first.child.pid, data_dir: alias });
    expect(JSON.parse(refusal!).msg).toContain(`pid ${first.child.pid}`);
    expect(runDirEntries(dataDir)).toEqual(sockets);
    expect((await httpRequest(address, 'GET', '/v1/ready')).status).toBe(200);

    // An offline tool on the same data dir still runs beside the daemon.
    const provision = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'dist/cli/provision.js'),
        '--org',
        'Ops',
        '--email',
        'ops@lock.example.com',
        '--name',
        'Ops',
      ],
      { env: { PATH: process.env.PATH ?? '', SERVICE_DATA_DIR: dataDir }, encoding: 'utf8' },
    );
    expect(provision.stderr).toBe('');
    expect(provision.status).toBe(0);

    first.child.kill('SIGKILL');
    await first.exited;
    await waitForStart(start(dataDir));
  });
});
