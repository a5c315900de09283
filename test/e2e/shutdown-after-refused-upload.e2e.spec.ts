import { rmSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { httpRequest, makeTempDir } from '../support/test-app';

// Start-up on a loaded machine takes seconds; the shutdown itself must not need SERVICE_SHUTDOWN_TIMEOUT_S (10 s).
jest.setTimeout(60_000);

/** Sends the head and the first part of an upload that claims more, and resolves with the first response bytes. */
function startUpload(
  url: string,
  key: string,
  head: Record<string, string>,
): Promise<{ socket: Socket; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const headers = Object.entries({ host: `${hostname}:${port}`, authorization: `Bearer ${key}`, ...head })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST /v1/connectors/uploads HTTP/1.1\r\n${headers}\r\n`);
      const chunk = Buffer.alloc(16 * 1024, 65);
      socket.write(
        head['transfer-encoding'] ? `${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n` : chunk,
      );
    });
    socket.once('data', (data) => resolve({ socket, text: data.toString() }));
    socket.once('error', reject);
  });
}

describe('SIGTERM right after an upload was refused mid-stream', () => {
  let daemon: DaemonProcess | undefined;
  let dataDir: string;
  const sockets: Socket[] = [];

  beforeEach(() => {
    dataDir = makeTempDir();
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    [
      'a declared length above the limit',
      { 'content-type': 'application/octet-stream', 'content-length': '10000000' },
    ],
    [
      'a chunked body that grows past the limit',
      { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    ],
  ])('closes the connection of %s, so the daemon stops at once with exit 0', async (_name, head) => {
    daemon = spawnDaemon({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      ENGINE_POOL_SIZE: '0',
      SERVICE_MAX_UPLOAD_BYTES: '4096',
    });
    const url = await waitForStart(daemon);
    const signup = await httpRequest<{ api_key: { raw_key: string } }>(url, 'POST', '/auth/signup', {
      body: { email: 'stop@example.com', password: 'correct horse battery', name: 'S' },
    });
    expect(signup.status).toBe(201);

    const { socket, text } = await startUpload(url, signup.body.api_key.raw_key, head);
    sockets.push(socket);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain('"code":"payload_too_large"');
    expect(text.toLowerCase()).toContain('connection: close');

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.output()).not.toContain('"event":"daemon_stop_timeout"');
  });
});
