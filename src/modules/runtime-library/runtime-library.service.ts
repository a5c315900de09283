import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { RuntimeSupervisor } from './runtime-supervisor';
import {
  RUNTIME_CLIENT,
  RuntimeCallError,
  RuntimeClient,
  RuntimeExecution,
  RuntimeManifest,
  RuntimeModule,
  RuntimeTimeoutError,
  RuntimeUnreachableError,
} from './runtime.types';

export interface LibraryListing {
  readonly runtimeHealth: { readonly status: string; readonly version?: string };
  readonly moduleCount: number;
  readonly libraries: readonly RuntimeModule[];
}

export interface HealthSnapshot {
  readonly status: 'ok' | 'degraded' | 'unavailable';
  readonly checkedAt: string;
  readonly version: string | null;
  readonly uptimeS: number | null;
  readonly supervised: boolean;
  readonly pid: number | null;
  readonly restarts: number;
  readonly modules: readonly {
    readonly name: string;
    readonly status: string;
    readonly functions: readonly string[];
  }[];
  readonly message?: string;
}

const BINARY_MANIFEST_TIMEOUT_MS = 5_000;

/** Lexical match: every word of the search appears in the module name or one of its function names. */
export function filterModules(
  modules: readonly RuntimeModule[],
  search: string | undefined,
): RuntimeModule[] {
  const words = (search ?? '')
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((w) => w !== '');
  if (words.length === 0) return [...modules];
  const matches: RuntimeModule[] = [];
  for (const module of modules) {
    const moduleHit = words.every((w) => module.name.toLowerCase().includes(w));
    if (moduleHit) {
      matches.push(module);
      continue;
    }
    const functions = module.functions.filter((f) =>
      words.every((w) => f.toLowerCase().includes(w) || module.name.toLowerCase().includes(w)),
    );
    if (functions.length > 0) matches.push({ ...module, functions });
  }
  return matches;
}

@Injectable()
export class RuntimeLibraryService implements OnModuleInit, OnApplicationShutdown {
  private supervisor: RuntimeSupervisor | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private lastSnapshot: HealthSnapshot | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Inject(RUNTIME_CLIENT) private readonly client: RuntimeClient,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.runtimeSupervise) {
      this.supervisor = new RuntimeSupervisor(
        this.config.runtimeBinaryPath,
        this.config.runtimeSocket,
        this.logger,
      );
      const ready = await this.supervisor.start();
      if (!ready) {
        this.logger.warn(
          { event: 'runtime_library_not_ready', socket: this.config.runtimeSocket },
          'the supervised runtime-library daemon is not answering yet',
        );
      }
    }
    await this.checkHealth();
    this.healthTimer = setInterval(() => void this.checkHealth(), this.config.runtimeHealthIntervalS * 1000);
    this.healthTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.healthTimer);
    this.client.close();
    await this.supervisor?.stop();
  }

  isSupervised(): boolean {
    return this.supervisor !== undefined;
  }

  /** From the running daemon; when it is down, from the binary's `--manifest` (the same modules, compiled in). */
  async manifest(): Promise<RuntimeManifest> {
    try {
      return await this.client.manifest();
    } catch (error) {
      if (!(error instanceof RuntimeUnreachableError || error instanceof RuntimeTimeoutError)) throw error;
      return this.binaryManifest();
    }
  }

  async healthSnapshot(): Promise<HealthSnapshot> {
    return this.checkHealth();
  }

  /** The last health check (a new one only before the first): cheap enough for every /v1/infrastructure call. */
  async lastHealthSnapshot(): Promise<HealthSnapshot> {
    return this.lastSnapshot ?? (await this.checkHealth());
  }

  async listLibraries(search: string | undefined, limit: number | undefined): Promise<LibraryListing> {
    const [health, manifest] = await this.guarded(() =>
      Promise.all([this.client.health(), this.client.manifest()]),
    );
    const libraries = filterModules(manifest.modules, search);
    return {
      runtimeHealth: { status: health.status, version: health.version },
      moduleCount: manifest.modules.length,
      libraries: limit === undefined ? libraries : libraries.slice(0, limit),
    };
  }

  async execute(module: string, fn: string, args: unknown, requestId?: string): Promise<RuntimeExecution> {
    return this.guarded(() => this.client.execute(module, fn, args ?? null, requestId ?? randomUUID()));
  }

  private async guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.toAppError(error);
    }
  }

  private toAppError(error: unknown): unknown {
    if (error instanceof RuntimeUnreachableError) {
      return new AppError(
        'runtime_unavailable',
        `The local runtime-library daemon is not reachable at ${this.config.runtimeSocket}: start the local runtime ` +
          `(systemctl start decision-runtime, or ${this.config.runtimeBinaryPath} --serve ${this.config.runtimeSocket}).`,
      );
    }
    if (error instanceof RuntimeTimeoutError) return new AppError('runtime_timeout', error.message);
    if (error instanceof RuntimeCallError) {
      return new AppError('runtime_execution_failed', error.message, [
        { field: 'runtime', problem: error.code },
      ]);
    }
    return error;
  }

  private async checkHealth(): Promise<HealthSnapshot> {
    const supervised = this.supervisor !== undefined;
    const restarts = this.supervisor?.status().restarts ?? 0;
    const pid = this.supervisor?.status().pid ?? null;
    const checkedAt = new Date().toISOString();
    let snapshot: HealthSnapshot;
    try {
      const [health, manifest] = await Promise.all([this.client.health(), this.client.manifest()]);
      const statusOf = new Map(health.modules.map((m) => [m.name, m.status]));
      const modules = manifest.modules.map((m) => ({
        name: m.name,
        status: statusOf.get(m.name) ?? 'unknown',
        functions: m.functions,
      }));
      const allOk = health.status === 'ok' && modules.every((m) => m.status === 'ok');
      snapshot = {
        status: allOk ? 'ok' : 'degraded',
        checkedAt,
        version: health.version ?? manifest.version,
        uptimeS: health.uptimeS ?? null,
        supervised,
        pid,
        restarts,
        modules,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      snapshot = {
        status: 'unavailable',
        checkedAt,
        version: null,
        uptimeS: null,
        supervised,
        pid,
        restarts,
        modules: [],
        message,
      };
    }
    if (snapshot.status !== this.lastSnapshot?.status) {
      const level = snapshot.status === 'ok' ? 'info' : 'warn';
      this.logger[level](
        { event: 'runtime_library_health', status: snapshot.status, reason: snapshot.message },
        `runtime-library daemon is ${snapshot.status}`,
      );
    }
    this.lastSnapshot = snapshot;
    return snapshot;
  }

  private binaryManifest(): Promise<RuntimeManifest> {
    return new Promise((resolve, reject) => {
      execFile(
        this.config.runtimeBinaryPath,
        ['--manifest'],
        { timeout: BINARY_MANIFEST_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
        (error, stdout) => {
          if (error) {
            reject(
              new AppError(
                'runtime_unavailable',
                `The runtime-library binary could not report its manifest: ${error.message}`,
              ),
            );
            return;
          }
          try {
            const parsed = JSON.parse(stdout) as { version?: unknown; modules?: unknown };
            const modules = Array.isArray(parsed.modules) ? (parsed.modules as RuntimeModule[]) : [];
            resolve({ version: typeof parsed.version === 'string' ? parsed.version : 'unknown', modules });
          } catch {
            reject(
              new AppError(
                'runtime_unavailable',
                'The runtime-library binary printed an unreadable manifest.',
              ),
            );
          }
        },
      );
    });
  }
}
