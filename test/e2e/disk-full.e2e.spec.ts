import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_ENTRY, DaemonProcess, REPO_ROOT, waitForStart } from '../support/daemon-process';
import { httpRequest, makeTempDir } from '../support/test-app';
import { expectMatchesContract } from '../support/contract';

jest.setTimeout(120_000);

const canMount =
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs none /mnt'])
    .status === 0;

/** The built daemon in a private mount namespace whose data dir is a tmpfs of `sizeMb`. */
function spawnOnTmpfs(dataDir: string, sizeMb: number, env: Record<string, string>): DaemonProcess {
  let output = '';
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount -t tmpfs -o size=${sizeMb}m,mode=0700 none '${dataDir}' && exec "$0" "$1"`,
      process.execPath,
      DAEMON_ENTRY,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        SERVICE_RUNTIME_SUPERVISE: 'false',
        ENGINE_POOL_SIZE: '0',
        SERVICE_PORT: '0',
        SERVICE_DATA_DIR: dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs a shell command inside the daemon's mount namespace, where its tmpfs is visible. */
function inDaemonNamespace(daemon: DaemonProcess, command: string): void {
  spawnSync('nsenter', ['-t', String(daemon.child.pid), '-m', 'sh', '-c', command]);
}

const CSV = ['id,region,amount', ...Array.from({ length: 200 }, (_, i) => `${i},r${i % 7},${i * 3}.5`)].join(
  '\n',
);

(canMount ? describe : describe.skip)(
  'a full disk under the data dir (tmpfs in a private mount namespace)',
  () => {
    let daemon: DaemonProcess;
    let dataDir: string;
    let url: string;
    let key: string;

    beforeAll(async () => {
      dataDir = makeTempDir();
      daemon = spawnOnTmpfs(dataDir, 24, { SERVICE_MIN_FREE_DISK_MB: '2' });
      url = await waitForStart(daemon);
      const signup = await httpRequest<{ api_key: { raw_key: string } }>(url, 'POST', '/auth/signup', {
        body: { email: 'full@example.com', password: 'correct horse battery', name: 'F' },
      });
      expect(signup.status).toBe(201);
      key = signup.body.api_key.raw_key;
    });

    afterAll(async () => {
      if (daemon.child.exitCode === null) {
        daemon.child.kill('SIGKILL');
        await daemon.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('is ready while the data dir has room, and says how much', async () => {
      const ready = await httpRequest(url, 'GET', '/v1/ready');
      expect(ready.status).toBe(200);
      expectMatchesContract(ready, 'GET /v1/ready');
      expect(ready.body).toMatchObject({
        status: 'ready',
        storage: { status: 'ok', min_free_bytes: 2 * 1024 * 1024 },
      });
      expect(ready.body.storage.free_bytes).toBeGreaterThan(2 * 1024 * 1024);
      expect(ready.body.storage).not.toHaveProperty('path');
      expect(ready.body.storage.free_bytes).toBeLessThanOrEqual(24 * 1024 * 1024);
    });

    it('answers 507 insufficient_storage for an upload larger than the free space, and removes the partial file', async () => {
      const res = await httpRequest(url, 'POST', '/v1/connectors/uploads', {
        token: key,
        rawBody: Buffer.alloc(32 * 1024 * 1024, 65),
        headers: { 'content-type': 'application/octet-stream', 'x-filename': 'big.bin' },
      });
      expect(res.status).toBe(507);
      expect(res.body.error.code).toBe('insufficient_storage');
      const after = await httpRequest(url, 'GET', '/v1/ready');
      expect(after.status).toBe(200);
    });

    it('with the disk filled: uploads, ingest and database writes answer 507, readiness 503; freed, ready again', async () => {
      const created = await httpRequest<{ id: string }>(url, 'POST', '/v1/connectors', {
        token: key,
        body: { name: 'csv', connector_type: 'file', config: { file_type: 'csv', content: CSV } },
      });
      expect(created.status).toBe(201);
      inDaemonNamespace(daemon, `dd if=/dev/zero of='${join(dataDir, 'filler')}' bs=1M`);

      const upload = await httpRequest(url, 'POST', '/v1/connectors/uploads', {
        token: key,
        rawBody: Buffer.alloc(256 * 1024, 65),
        headers: { 'content-type': 'application/octet-stream', 'x-filename': 'small.csv' },
      });
      expect([upload.status, upload.body.error?.code]).toEqual([507, 'insufficient_storage']);

      const connect = await httpRequest(url, 'POST', '/v1/data/connect', {
        token: key,
        body: { connection_type: 'file', dataset_name: 'full', connection_id: created.body.id },
      });
      expect([connect.status, connect.body.error?.code]).toEqual([507, 'insufficient_storage']);

      const statuses: number[] = [];
      for (let i = 0; i < 300 && !statuses.includes(507); i++) {
        const res = await httpRequest(url, 'POST', '/v1/api-keys', {
          token: key,
          body: { label: `key ${i} ${'x'.repeat(100)}` },
        });
        statuses.push(res.status);
        if (res.status === 507) expect(res.body.error.code).toBe('insufficient_storage');
      }
      expect(statuses.filter((s) => s !== 201 && s !== 507)).toEqual([]);
      expect(statuses).toContain(507);

      const notReady = await httpRequest(url, 'GET', '/v1/ready');
      expect(notReady.status).toBe(503);
      expectMatchesContract(notReady, 'GET /v1/ready');
      expect(notReady.body).toMatchObject({ status: 'not_ready', storage: { status: 'degraded' } });
      expect((await httpRequest(url, 'GET', '/v1/health')).status).toBe(200);

      inDaemonNamespace(daemon, `rm -f '${join(dataDir, 'filler')}'`);
      expect((await httpRequest(url, 'GET', '/v1/ready')).status).toBe(200);
    });
  },
);
