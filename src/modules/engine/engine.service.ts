import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError, ErrorCode, StartupError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { EngineMetrics } from './engine.metrics';
import {
  EngineMode,
  EngineOutcome,
  EnginePort,
  EngineReply,
  EngineRequest,
  EngineStatus,
  EngineTicket,
  INTERACTIVE_TICKET,
  ServingMode,
} from './engine.types';
import { EnginePool, PoolUnavailableError } from './engine-pool';
import { checkProbeReply, ProbeComputeError, PROBE_REQUEST, resultFingerprint } from './engine-probe';
import { SocketWorkerLauncher, WorkerHandle, WorkerLauncher, WorkerStartError } from './engine-worker';
import { SubprocessEngine, SubprocessFailedError } from './subprocess-engine';

/** Unix socket paths are limited to 108 bytes; a deep data dir falls back to a private temp dir. */
const MAX_SOCKET_DIR_LENGTH = 80;
const PROBE_RETRY_BACKOFF_MS = 200;
const ENGINE_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'engine_unavailable',
  'engine_busy',
  'engine_timeout',
]);

/** May the engine run one process per request when the pool cannot start? (RUNTIME_FALLBACK_MODE, spec Limits) */
export function isFallbackAllowed(
  config: Pick<AppConfig, 'runtimeFallbackMode' | 'nodeEnv' | 'engineAllowSubprocessFallback'>,
): boolean {
  const byMode =
    config.runtimeFallbackMode === 'allow' ||
    (config.runtimeFallbackMode === 'auto' && config.nodeEnv !== 'production');
  return byMode && config.engineAllowSubprocessFallback;
}

/** Owns the engine: settles `engine_mode` before the HTTP listener opens (onModuleInit runs inside app.init()). */
@Injectable()
export class EngineService implements EnginePort, OnModuleInit, OnApplicationShutdown {
  private settledMode: EngineMode = 'unavailable';
  private pool: EnginePool | undefined;
  private readonly subprocess: SubprocessEngine;
  private readonly fallbackAllowed: boolean;
  private fallbackVersion: string | undefined;
  private reason = 'the engine has not started';
  private probeFingerprint: string | undefined;
  private reportedMode: EngineMode | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: EngineMetrics,
  ) {
    this.fallbackAllowed = isFallbackAllowed(config);
    this.subprocess = new SubprocessEngine({
      binaryPath: config.engineBinaryPath,
      computeTimeoutMs: config.engineComputeTimeoutS * 1000,
      acquireTimeoutMs: config.engineAcquireTimeoutS * 1000,
      concurrency: Math.max(1, cpus().length),
    });
  }

  async onModuleInit(): Promise<void> {
    const started = performance.now();
    const size = this.config.enginePoolSize;
    this.logger.info(
      { event: 'engine_pool_started', size, binary: this.config.engineBinaryPath },
      'starting the engine worker pool',
    );
    if (size > 0 && (await this.startPool())) {
      const status = this.pool?.status();
      this.settle('pool');
      this.logger.info(
        {
          event: 'engine_pool_ready',
          size,
          live: status?.live,
          engine_version: status?.version,
          pids: status?.workers.map((w) => w.pid),
          duration_ms: Math.round(performance.now() - started),
        },
        'the engine worker pool is ready',
      );
      this.logger.info({ event: 'engine_runtime_mode', value: 'pool' }, 'engine mode: pool');
      return;
    }
    if (size === 0) this.reason = 'ENGINE_POOL_SIZE is 0';
    await this.settleWithoutPool();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.stop();
  }

  get mode(): EngineMode {
    if (this.settledMode !== 'pool') return this.settledMode;
    if (this.pool?.isServing) return 'pool';
    return this.fallbackAllowed ? 'subprocess_fallback' : 'unavailable';
  }

  status(): EngineStatus {
    const pool = this.pool?.status();
    const mode = this.mode;
    return {
      mode,
      version: mode === 'unavailable' ? null : (pool?.version ?? this.fallbackVersion ?? null),
      lastHealthCheck: pool?.lastHealthCheck?.toISOString() ?? null,
      pool: {
        size: pool?.size ?? 0,
        busy: pool?.busy ?? 0,
        queued: pool?.queued ?? 0,
        restarts: pool?.restarts ?? 0,
      },
    };
  }

  /** Engine errors (503, 504) carry the engine_mode at the time, as every simulate answer does. */
  async simulate(request: EngineRequest, ticket: EngineTicket = INTERACTIVE_TICKET): Promise<EngineOutcome> {
    try {
      return await this.compute(request, ticket);
    } catch (error) {
      if (error instanceof AppError && ENGINE_ERROR_CODES.has(error.code)) {
        throw new AppError(error.code, error.message, error.details, error.headers, {
          engine_mode: this.mode,
        });
      }
      throw error;
    }
  }

  private async compute(request: EngineRequest, ticket: EngineTicket): Promise<EngineOutcome> {
    const mode = this.mode;
    this.noteMode(mode);
    switch (mode) {
      case 'pool':
        try {
          if (!this.pool) throw new PoolUnavailableError('the engine pool is not running');
          return this.outcome(await this.pool.run(request, ticket), 'pool');
        } catch (error) {
          if (!(error instanceof PoolUnavailableError)) throw error;
          if (!this.fallbackAllowed) throw this.unavailable(error.message);
          return this.runSubprocess(request);
        }
      case 'subprocess_fallback':
        return this.runSubprocess(request);
      case 'unavailable':
        throw this.unavailable(this.reason);
    }
  }

  private async runSubprocess(request: EngineRequest): Promise<EngineOutcome> {
    const started = performance.now();
    let reply: EngineReply;
    try {
      reply = await this.subprocess.run(request);
    } catch (error) {
      if (error instanceof AppError && error.code === 'engine_timeout')
        this.metrics.timeouts.inc({ path: 'subprocess' });
      if (error instanceof SubprocessFailedError) {
        this.logger.error({ event: 'engine_subprocess_failed', err: error }, error.message);
        throw new AppError('internal_error', 'The engine process failed while computing this request.');
      }
      throw error;
    }
    this.metrics.compute.observe({ path: 'subprocess' }, (performance.now() - started) / 1000);
    return this.outcome(reply, 'subprocess_fallback');
  }

  private outcome(reply: EngineReply, mode: ServingMode): EngineOutcome {
    if (reply.type === 'result') return { result: reply.result, mode };
    const { code, message, details } = reply.error;
    switch (code) {
      case 'validation_failed':
        throw AppError.validation(
          details && details.length > 0 ? details : [{ field: 'body', problem: message }],
          message,
        );
      case 'correlation_matrix_invalid':
        throw new AppError('correlation_matrix_invalid', message, details);
      case 'engine_timeout':
        throw new AppError(
          'engine_timeout',
          `The computation exceeded ENGINE_COMPUTE_TIMEOUT_S (${this.config.engineComputeTimeoutS} s).`,
        );
      default:
        this.logger.error(
          { event: 'engine_error', code, engine_message: message },
          'the engine reported an error',
        );
        throw new AppError('internal_error', 'The engine could not compute this request.');
    }
  }

  private unavailable(reason: string): AppError {
    return new AppError(
      'engine_unavailable',
      `The simulation engine is unavailable (${reason}); see GET /v1/infrastructure and the engine_* start-up events.`,
      undefined,
      { 'retry-after': '30' },
    );
  }

  private async startPool(): Promise<boolean> {
    const launcher = new SocketWorkerLauncher({
      binaryPath: this.config.engineBinaryPath,
      socketDir: this.socketDir(),
      readyTimeoutMs: this.config.engineWorkerReadyTimeoutS * 1000,
      frameTimeoutMs: this.config.engineProbeFrameTimeoutS * 1000,
    });
    const attempts = this.config.engineProbeAttempts;
    let lastError: unknown;
    let made = 0;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      made = attempt;
      try {
        const first = await this.launchProbed(launcher);
        await this.createPool(launcher).start([first]);
        return true;
      } catch (error) {
        lastError = error;
        this.reason = `server mode failed: ${describe(error)}`;
        // A binary that cannot even be executed will not start on a second try.
        if (error instanceof WorkerStartError && error.reason === 'spawn_failed') break;
        if (attempt < attempts) {
          this.logger.warn(
            { event: 'engine_server_mode_probe_retry', attempt, attempts, reason: describe(error) },
            'the engine server-mode probe failed; retrying',
          );
          await sleep(PROBE_RETRY_BACKOFF_MS * attempt);
        }
      }
    }
    const broken = lastError instanceof ProbeComputeError;
    this.logger.error(
      {
        event: broken ? 'engine_server_mode_compute_broken' : 'engine_server_mode_probe_failed',
        attempts: made,
        reason: describe(lastError),
        binary: this.config.engineBinaryPath,
      },
      broken
        ? 'the engine binary starts but computes wrong numbers: rebuild it (npm run build)'
        : 'the engine server mode could not be validated',
    );
    return false;
  }

  private async launchProbed(launcher: WorkerLauncher): Promise<WorkerHandle> {
    const budgetMs = this.config.engineProbeSocketTimeoutS * 1000;
    let worker: WorkerHandle | undefined;
    let expired = false;
    const attempt = (async () => {
      worker = await launcher.launch();
      if (expired) throw new Error('late');
      await this.probe(worker);
      return worker;
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(
          new Error(`the probe did not finish within ENGINE_PROBE_SOCKET_TIMEOUT_S (${budgetMs / 1000} s)`),
        );
      }, budgetMs);
    });
    try {
      return await Promise.race([attempt, deadline]);
    } catch (error) {
      worker?.kill();
      attempt.catch(() => worker?.kill());
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every worker must compute the known probe, with numbers identical to the first worker's. */
  private async probe(worker: WorkerHandle): Promise<void> {
    const reply = await worker.run(PROBE_REQUEST, this.config.engineProbeFrameTimeoutS * 1000);
    const fingerprint = resultFingerprint(checkProbeReply(reply));
    this.probeFingerprint ??= fingerprint;
    if (fingerprint !== this.probeFingerprint) {
      throw new ProbeComputeError(
        'this worker computed different numbers than the first one for the same seed',
      );
    }
  }

  private createPool(launcher: WorkerLauncher): EnginePool {
    const config = this.config;
    const metrics = this.metrics;
    const logger = this.logger;
    this.pool = new EnginePool(
      launcher,
      (worker) => this.probe(worker),
      {
        size: config.enginePoolSize,
        acquireTimeoutMs: config.engineAcquireTimeoutS * 1000,
        computeTimeoutMs: config.engineComputeTimeoutS * 1000,
        pingTimeoutMs: config.engineProbeFrameTimeoutS * 1000,
        recycleAfter: config.engineRecycleAfter,
        healthIntervalMs: config.engineHealthIntervalS * 1000,
        crashLoop: {
          maxFailures: Math.max(5, 2 * config.enginePoolSize),
          windowMs: 60_000,
          coolDownMs: 30_000,
        },
      },
      {
        workerReady: (pid, slot) => {
          metrics.live.inc();
          logger.debug({ event: 'engine_worker_ready', pid, slot }, 'engine worker ready');
        },
        workerLost: (reason, slot, detail, pid) => {
          if (pid !== undefined) metrics.live.dec();
          metrics.restarts.inc({ reason });
          const level = reason === 'recycled' ? 'info' : 'warn';
          logger[level](
            { event: 'engine_worker_replaced', reason, slot, pid, detail },
            'replacing an engine worker',
          );
        },
        busyChanged: (busy) => metrics.busy.set(busy),
        queueWaited: (ms) => metrics.queueWait.observe(ms / 1000),
        computed: (ms) => metrics.compute.observe({ path: 'pool' }, ms / 1000),
        timedOut: () => metrics.timeouts.inc({ path: 'pool' }),
        crashLoop: (failures) =>
          logger.error(
            { event: 'engine_crash_loop', failures },
            'engine workers keep failing: replacements are throttled by the crash-loop breaker',
          ),
        availabilityChanged: (serving) => this.noteMode(serving ? 'pool' : this.mode),
      },
    );
    return this.pool;
  }

  private async settleWithoutPool(): Promise<void> {
    if (!this.fallbackAllowed) {
      throw new StartupError(
        'engine_pool_required_unavailable',
        'the engine pool is required (subprocess fallback denied) and could not start: the daemon does not start',
        {
          reason: this.reason,
          runtime_fallback_mode: this.config.runtimeFallbackMode,
          engine_allow_subprocess_fallback: this.config.engineAllowSubprocessFallback,
        },
      );
    }
    try {
      this.fallbackVersion = checkProbeReply(await this.subprocess.run(PROBE_REQUEST)).engine_version;
    } catch (error) {
      this.reason = `${this.reason}; the one-shot engine failed too: ${describe(error)}`;
      this.settle('unavailable');
      this.logger.error(
        {
          event: 'engine_subprocess_probe_failed',
          reason: this.reason,
          binary: this.config.engineBinaryPath,
        },
        'neither the engine pool nor the one-shot engine works: engine requests answer 503',
      );
      return;
    }
    this.settle('subprocess_fallback');
    this.logger.warn(
      { event: 'engine_pool_unavailable', reason: this.reason },
      'the engine pool could not start: degraded to one engine process per request',
    );
    this.logger.info(
      { event: 'engine_runtime_mode', value: 'subprocess_fallback' },
      'engine mode: subprocess_fallback',
    );
  }

  private settle(mode: EngineMode): void {
    this.settledMode = mode;
    this.noteMode(mode);
  }

  private noteMode(mode: EngineMode): void {
    if (mode === this.reportedMode) return;
    const previous = this.reportedMode;
    this.reportedMode = mode;
    this.metrics.setMode(mode);
    if (previous !== undefined && this.settledMode === 'pool') {
      this.logger.warn({ event: 'engine_mode_changed', from: previous, to: mode }, `engine mode: ${mode}`);
    }
  }

  private socketDir(): string {
    if (this.config.runDir.length <= MAX_SOCKET_DIR_LENGTH) return this.config.runDir;
    return mkdtempSync(join(tmpdir(), 'ds-engine-'));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
