import { rmSync } from 'node:fs';
import { makeTempDir } from '../support/test-app';
import { DaemonProcess, spawnDaemon, waitForStart } from '../support/daemon-process';
import { NotifySocket, openNotifySocket } from '../support/notify-socket';

describe('sd_notify under a real notify socket', () => {
  let dir: string;
  let socket: NotifySocket;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    dir = makeTempDir();
    socket = await openNotifySocket(dir);
    daemon = spawnDaemon({
      SERVICE_DATA_DIR: dir,
      SERVICE_PORT: '0',
      NOTIFY_SOCKET: socket.path,
      WATCHDOG_USEC: '200000',
    });
  }, 120_000);

  afterAll(async () => {
    if (daemon.child.exitCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    socket.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends READY=1 from the daemon process only once the API answers, with a STATUS line', async () => {
    const ready = await socket.waitFor((m) => m.fields.READY === '1', 90_000);
    // The API must already answer when systemd is told the daemon is ready: no retry here.
    const url = await waitForStart(daemon, 1000);
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(ready.pid).toBe(daemon.child.pid);
    expect(ready.fields.STATUS).toMatch(
      new RegExp(`^listening on ${url} \\(engine mode: (pool|subprocess_fallback|unavailable)\\)$`),
    );
    expect(socket.messages.filter((m) => m.fields.READY === '1')).toHaveLength(1);
    expect(socket.messages[0].fields.STATUS).toBe('starting');
  }, 120_000);

  it('pings the watchdog at half of WATCHDOG_USEC', async () => {
    const first = socket.messages.length;
    await socket.waitFor((m) => m.fields.WATCHDOG === '1' && socket.messages.indexOf(m) >= first);
    await socket.waitFor((m) => m.fields.WATCHDOG === '1' && socket.messages.indexOf(m) > first + 1);
    const pings = socket.messages.filter((m) => m.fields.WATCHDOG === '1');
    expect(pings.length).toBeGreaterThanOrEqual(2);
    expect(new Set(pings.map((m) => m.pid))).toEqual(new Set([daemon.child.pid]));
  });

  it('sends STOPPING=1 on SIGTERM and exits 0', async () => {
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const stopping = await socket.waitFor((m) => m.fields.STOPPING === '1');
    expect(stopping.pid).toBe(daemon.child.pid);
    const afterStop = socket.messages.slice(socket.messages.indexOf(stopping) + 1);
    expect(afterStop.filter((m) => m.fields.WATCHDOG === '1')).toHaveLength(0);
  }, 120_000);
});

describe('sd_notify outside systemd', () => {
  it('starts and answers with NOTIFY_SOCKET unset', async () => {
    const dir = makeTempDir();
    const daemon = spawnDaemon({ SERVICE_DATA_DIR: dir, SERVICE_PORT: '0' });
    try {
      const url = await waitForStart(daemon, 90_000);
      expect((await fetch(`${url}/v1/health`)).status).toBe(200);
      expect(daemon.output()).not.toContain('systemd_notified_ready');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses to start when NOTIFY_SOCKET names a socket nobody listens on', async () => {
    const dir = makeTempDir();
    const daemon = spawnDaemon({
      SERVICE_DATA_DIR: dir,
      SERVICE_PORT: '0',
      NOTIFY_SOCKET: `${dir}/nobody.sock`,
    });
    try {
      expect(await daemon.exited).toBe(1);
      expect(daemon.output()).toContain('"event":"sd_notify_unavailable"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
