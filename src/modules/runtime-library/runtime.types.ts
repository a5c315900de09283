/** The runtime-library daemon's protocol, as the daemon sees it (docs/runtime.md). */
export interface RuntimeModule {
  readonly name: string;
  readonly engine: string;
  readonly functions: readonly string[];
}

export interface RuntimeManifest {
  readonly version: string;
  readonly modules: readonly RuntimeModule[];
}

export interface RuntimeHealth {
  readonly status: string;
  readonly version?: string;
  readonly uptimeS?: number;
  readonly modules: readonly { readonly name: string; readonly status: string }[];
}

export interface RuntimeExecution {
  readonly requestId: unknown;
  readonly result: unknown;
  readonly latencyMs: number;
  readonly engineUsed: string;
}

export interface RuntimeClient {
  manifest(): Promise<RuntimeManifest>;
  health(): Promise<RuntimeHealth>;
  execute(module: string, fn: string, args: unknown, requestId: string): Promise<RuntimeExecution>;
  close(): void;
}

export const RUNTIME_CLIENT = Symbol('RUNTIME_CLIENT');

export class RuntimeUnreachableError extends Error {
  constructor(
    readonly socketPath: string,
    reason: string,
  ) {
    super(`the runtime-library daemon at ${socketPath} is not reachable: ${reason}`);
    this.name = 'RuntimeUnreachableError';
  }
}

export class RuntimeTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the runtime-library daemon did not answer within ${waitedMs} ms`);
    this.name = 'RuntimeTimeoutError';
  }
}

export class RuntimeCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeCallError';
  }
}
