import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocketWorkerLauncher, WorkerHandle } from '../../../src/modules/engine/engine-worker';
import { REPO_ROOT } from '../../support/daemon-process';

export const ENGINE_BINARY = join(REPO_ROOT, 'engine_build', 'simulate');

export interface WarmEngine {
  readonly worker: WorkerHandle;
  stop(): void;
}

/** One real `simulate --serve` worker, driven over its socket exactly as the daemon's pool drives it. */
export async function startWarmEngine(): Promise<WarmEngine> {
  const socketDir = mkdtempSync(join(tmpdir(), 'ds-rel-engine-'));
  const launcher = new SocketWorkerLauncher({
    binaryPath: ENGINE_BINARY,
    socketDir,
    readyTimeoutMs: 30_000,
    frameTimeoutMs: 30_000,
  });
  const worker = await launcher.launch();
  return {
    worker,
    stop() {
      worker.kill();
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
