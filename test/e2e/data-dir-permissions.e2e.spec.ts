import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { httpRequest, makeTempDir } from '../support/test-app';

jest.setTimeout(60_000);

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('permissions of the data dir and the database files', () => {
  let daemon: DaemonProcess | undefined;
  let root: string;

  beforeEach(() => {
    root = makeTempDir();
  });

  afterEach(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    daemon = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('tightens an existing 0755 data dir and a 0644 database to 0700/0600, and logs it', async () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const databaseFile = join(dataDir, 'service.sqlite');
    writeFileSync(databaseFile, '');
    chmodSync(databaseFile, 0o644);

    daemon = spawnDaemon({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', ENGINE_POOL_SIZE: '0' });
    const url = await waitForStart(daemon);
    const signup = await httpRequest(url, 'POST', '/auth/signup', {
      body: { email: 'perm@example.com', password: 'correct horse battery', name: 'P' },
    });
    expect(signup.status).toBe(201);

    expect(modeOf(dataDir)).toBe('700');
    for (const file of ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm']) {
      expect([file, modeOf(join(dataDir, file))]).toEqual([file, '600']);
    }
    for (const dir of ['keys', 'run', 'datasets'])
      expect([dir, modeOf(join(dataDir, dir))]).toEqual([dir, '700']);
    const tightened = daemon
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"data_dir_permissions_tightened"'))
      .map((line) => JSON.parse(line) as { path: string; mode: string });
    expect(tightened).toEqual([expect.objectContaining({ path: dataDir, mode: '755' })]);
  });

  it('creates a new database 0600 with its WAL and shared-memory files even under a permissive umask', async () => {
    const dataDir = join(root, 'fresh');
    daemon = spawnDaemon({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', ENGINE_POOL_SIZE: '0' });
    const url = await waitForStart(daemon);
    const signup = await httpRequest(url, 'POST', '/auth/signup', {
      body: { email: 'fresh@example.com', password: 'correct horse battery', name: 'F' },
    });
    expect(signup.status).toBe(201);
    expect(modeOf(dataDir)).toBe('700');
    for (const file of ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm']) {
      expect([file, modeOf(join(dataDir, file))]).toEqual([file, '600']);
    }
  });
});
