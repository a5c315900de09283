import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonProcess, REPO_ROOT, spawnDaemon, waitForStart } from '../support/daemon-process';
import { isGone, servingWorkersUnder } from '../support/engine-processes';
import { httpRequest, makeTempDir } from '../support/test-app';

// Real processes on a shared machine: start-up can take seconds under load.
jest.setTimeout(60_000);

const FAKES = join(REPO_ROOT, 'test', 'fixtures', 'engine');

interface LogLine {
  event?: string;
  [key: string]: unknown;
}

function logLines(daemon: DaemonProcess): LogLine[] {
  return daemon
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const eventIndex = (lines: LogLine[], event: string): number => lines.findIndex((l) => l.event === event);

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return condition();
}

describe('engine start-up and shutdown of the real daemon process', () => {
  const daemons: DaemonProcess[] = [];
  afterEach(() => {
    for (const d of daemons.splice(0)) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  });
  const start = (env: Record<string, string>): { daemon: DaemonProcess; dataDir: string } => {
    const dataDir = makeTempDir('ds-engine-e2e-');
    const daemon = spawnDaemon({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', ...env });
    daemons.push(daemon);
    return { daemon, dataDir };
  };

  it('settles engine_mode before listening, and no worker survives a SIGKILL of the daemon', async () => {
    const { daemon, dataDir } = start({ ENGINE_POOL_SIZE: '2' });
    const address = await waitForStart(daemon, 45_000);
    const lines = logLines(daemon);
    const ready = lines.find((l) => l.event === 'engine_pool_ready');
    expect(ready).toMatchObject({ size: 2, live: 2, engine_version: expect.any(String) });
    expect(lines.find((l) => l.event === 'engine_runtime_mode')).toMatchObject({ value: 'pool' });
    expect(eventIndex(lines, 'engine_pool_started')).toBeLessThan(eventIndex(lines, 'engine_pool_ready'));
    expect(eventIndex(lines, 'engine_runtime_mode')).toBeLessThan(eventIndex(lines, 'daemon_started'));

    const pids = ready!.pids as number[];
    expect(pids).toHaveLength(2);
    expect(servingWorkersUnder(dataDir).sort()).toEqual([...pids].sort());
    expect((await httpRequest(address, 'GET', '/v1/infrastructure')).status).toBe(401);

    daemon.child.kill('SIGKILL');
    await daemon.exited;
    expect(await waitFor(() => pids.every(isGone))).toBe(true);
    expect(servingWorkersUnder(dataDir)).toEqual([]);
  });

  it('stops its workers and removes their sockets on SIGTERM', async () => {
    const { daemon, dataDir } = start({ ENGINE_POOL_SIZE: '2' });
    await waitForStart(daemon, 45_000);
    const pids = logLines(daemon).find((l) => l.event === 'engine_pool_ready')!.pids as number[];
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(await waitFor(() => pids.every(isGone))).toBe(true);
    const runDir = join(dataDir, 'run');
    expect(existsSync(runDir) ? readdirSync(runDir).filter((f) => f.startsWith('engine-')) : []).toEqual([]);
  });

  it('logs the probe retries and engine_pool_required_unavailable when the fallback is denied, and does not start', async () => {
    const { daemon } = start({
      ENGINE_BINARY_PATH: join(FAKES, 'no-socket.sh'),
      ENGINE_WORKER_READY_TIMEOUT_S: '0.3',
      ENGINE_PROBE_ATTEMPTS: '2',
      RUNTIME_FALLBACK_MODE: 'deny',
    });
    expect(await daemon.exited).toBe(1);
    const lines = logLines(daemon);
    expect(lines.filter((l) => l.event === 'engine_server_mode_probe_retry')).toHaveLength(1);
    expect(lines.find((l) => l.event === 'engine_server_mode_probe_failed')).toMatchObject({ attempts: 2 });
    expect(lines.find((l) => l.event === 'engine_pool_required_unavailable')).toMatchObject({
      level: 'fatal',
      runtime_fallback_mode: 'deny',
    });
    expect(eventIndex(lines, 'engine_runtime_mode')).toBe(-1);
    expect(eventIndex(lines, 'daemon_started')).toBe(-1);
  });

  it('logs engine_pool_unavailable and engine_runtime_mode subprocess_fallback when it degrades', async () => {
    const { daemon } = start({
      ENGINE_BINARY_PATH: join(FAKES, 'serve-exits.sh'),
      ENGINE_PROBE_ATTEMPTS: '1',
      RUNTIME_FALLBACK_MODE: 'allow',
    });
    await waitForStart(daemon, 45_000);
    const lines = logLines(daemon);
    expect(lines.find((l) => l.event === 'engine_server_mode_probe_failed')?.reason).toContain(
      'server mode is broken',
    );
    expect(eventIndex(lines, 'engine_pool_unavailable')).toBeGreaterThan(-1);
    expect(lines.find((l) => l.event === 'engine_runtime_mode')).toMatchObject({
      value: 'subprocess_fallback',
    });
  });

  it('logs engine_server_mode_compute_broken for a binary that computes wrong numbers, and does not start without a fallback', async () => {
    const { daemon } = start({
      ENGINE_BINARY_PATH: join(FAKES, 'broken-compute.sh'),
      ENGINE_WORKER_READY_TIMEOUT_S: '10',
      ENGINE_PROBE_ATTEMPTS: '1',
      RUNTIME_FALLBACK_MODE: 'deny',
    });
    expect(await daemon.exited).toBe(1);
    const lines = logLines(daemon);
    expect(lines.find((l) => l.event === 'engine_server_mode_compute_broken')?.reason).toContain(
      'proceed.mean',
    );
    expect(eventIndex(lines, 'engine_pool_required_unavailable')).toBeGreaterThan(
      eventIndex(lines, 'engine_server_mode_compute_broken'),
    );
    expect(eventIndex(lines, 'daemon_started')).toBe(-1);
  });
});
