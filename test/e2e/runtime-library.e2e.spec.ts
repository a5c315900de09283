import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rejection } from '../support/rejection';
import { RuntimeLibraryService } from '../../src/modules/runtime-library/runtime-library.service';
import { signupAccount } from '../factories/accounts';
import { DaemonProcess, spawnDaemon, waitForLogEvent, waitForStart } from '../support/daemon-process';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const MODULES = ['stats', 'finance', 'decision', 'distributions'];

async function until<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('runtime library, supervised by the daemon', () => {
  let t: TestApp;
  let token: string;
  let runtime: RuntimeLibraryService;

  beforeAll(async () => {
    t = await startTestApp({
      SERVICE_RUNTIME_SUPERVISE: 'true',
      SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED: '1',
    });
    token = (await signupAccount(t)).apiKey;
    runtime = t.app.get(RuntimeLibraryService);
  });
  afterAll(async () => {
    await t.close();
  });

  it('GET /v1/runtime/manifest lists the compiled-in modules', async () => {
    const res = await t.request('GET', '/v1/runtime/manifest', { token });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('1.0.0');
    expect(res.body.modules.map((m: any) => m.name)).toEqual(MODULES);
    expect(res.body.modules[1]).toEqual({
      name: 'finance',
      engine: 'native',
      functions: ['npv', 'irr', 'pmt', 'fv'],
    });
  });

  it('GET /v1/libraries/health reports every module ok', async () => {
    const res = await t.request('GET', '/v1/libraries/health', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', version: '1.0.0', supervised: true });
    expect(res.body.modules.map((m: any) => `${m.name}:${m.status}`)).toEqual(MODULES.map((m) => `${m}:ok`));
    const infrastructure = await t.request('GET', '/v1/infrastructure', { token });
    expect(infrastructure.body.runtime_library).toMatchObject({
      status: 'ok',
      version: '1.0.0',
      supervised: true,
    });
  });

  it('computes known values', async () => {
    const value = async (module: string, fn: string, args: unknown): Promise<any> =>
      (await runtime.execute(module, fn, args)).result;
    expect(await value('finance', 'npv', { rate: 0.1, cashflows: [-100, 60, 60] })).toBeCloseTo(
      4.1322314049586,
      12,
    );
    expect(await value('finance', 'irr', [[-100, 60, 60]])).toBeCloseTo(0.1306623862918, 12);
    expect(await value('finance', 'pmt', { rate: 0.08 / 12, nper: 10, pv: 10000 })).toBeCloseTo(
      -1037.0320893591,
      9,
    );
    expect(await value('stats', 'percentile', { values: [1, 2, 3, 4, 5], p: 40 })).toBeCloseTo(2.6, 12);
    expect(await value('stats', 'median', [[5, 1, 4, 2]])).toBe(3);
    expect(await value('stats', 'describe', { values: [1, 2, 3, 4] })).toEqual({
      count: 4,
      mean: 2.5,
      std_dev: expect.closeTo(1.2909944487358056, 12),
      min: 1,
      p25: 1.75,
      median: 2.5,
      p75: 3.25,
      max: 4,
    });
    const evpi = await value('decision', 'evpi', {
      payoffs: { large: [200000, -180000], small: [100000, -20000], nothing: [0, 0] },
      probabilities: [0.5, 0.5],
    });
    expect(evpi).toEqual({ evpi: 60000, ev_with_perfect_information: 100000, best_expected_value: 40000 });
  });

  it("surfaces the runtime's own message when a call fails", async () => {
    const error = await rejection(runtime.execute('stats', 'percentile', { values: [1, 2], p: 140 }));
    expect(error.code).toBe('runtime_execution_failed');
    expect(error.message).toBe("Argument 'p' of stats.percentile must be a number between 0 and 100.");
    expect(error.details).toEqual([{ field: 'runtime', problem: 'invalid_args' }]);
    const unknown = await rejection(runtime.execute('astrology', 'horoscope', null));
    expect(unknown.details).toEqual([{ field: 'runtime', problem: 'unknown_module' }]);
  });

  it('restarts the runtime daemon after it is killed', async () => {
    const before = (await t.request('GET', '/v1/libraries/health', { token })).body;
    expect(before.pid).toEqual(expect.any(Number));
    process.kill(before.pid, 'SIGKILL');
    const after = await until(
      async () => (await t.request('GET', '/v1/libraries/health', { token })).body,
      (body) => body.status === 'ok' && body.pid !== before.pid,
    );
    expect(after).toMatchObject({ status: 'ok', restarts: before.restarts + 1 });
    expect((await runtime.execute('finance', 'npv', [0.1, [-100, 60, 60]])).result).toBeCloseTo(4.1322314, 6);
  });
});

describe('runtime library, daemon not running', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_RUNTIME_SUPERVISE: 'false' });
    token = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers the manifest from the binary's --manifest", async () => {
    const res = await t.request('GET', '/v1/runtime/manifest', { token });
    expect(res.status).toBe(200);
    expect(res.body.modules.map((m: any) => m.name)).toEqual(MODULES);
  });

  it('hides /v1/libraries/health unless SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED is 1', async () => {
    const res = await t.request('GET', '/v1/libraries/health', { token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('tells the caller to start the local runtime, with no fallback', async () => {
    const error = await rejection(
      t.app.get(RuntimeLibraryService).execute('finance', 'npv', [0.1, [-100, 60]]),
    );
    expect(error.code).toBe('runtime_unavailable');
    expect(error.message).toContain('start the local runtime');
    expect(error.message).toContain(t.config.runtimeSocket);
    const infrastructure = await t.request('GET', '/v1/infrastructure', { token });
    expect(infrastructure.body.runtime_library).toMatchObject({ status: 'unavailable', supervised: false });
  });
});

/** True while `pid` is a live process (a zombie waiting for its reaper counts as gone). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('runtime library child of a daemon killed with SIGKILL', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  beforeAll(() => {
    dataDir = makeTempDir();
  });
  afterAll(async () => {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
    await daemon.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops with the daemon and removes its socket', async () => {
    daemon = spawnDaemon({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', SERVICE_RUNTIME_SUPERVISE: 'true' });
    await waitForStart(daemon);
    const { pid, socket } = (await waitForLogEvent(daemon, 'runtime_library_started')) as {
      pid: number;
      socket: string;
    };
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(socket)).toBe(true);

    daemon.child.kill('SIGKILL');
    await daemon.exited;
    await waitUntil(() => !isAlive(pid), 10_000, `runtime child ${pid} gone`);
    expect(existsSync(socket)).toBe(false);
  });
});
