import { RuntimeExecution, RuntimeManifest } from './runtime.types';
import { HealthSnapshot, LibraryListing } from './runtime-library.service';

export function toManifestResponse(manifest: RuntimeManifest): object {
  return {
    modules: manifest.modules.map((m) => ({ name: m.name, engine: m.engine, functions: [...m.functions] })),
    version: manifest.version,
  };
}

export function toHealthResponse(snapshot: HealthSnapshot): object {
  return {
    status: snapshot.status,
    checked_at: snapshot.checkedAt,
    version: snapshot.version,
    uptime_s: snapshot.uptimeS,
    supervised: snapshot.supervised,
    pid: snapshot.pid,
    restarts: snapshot.restarts,
    modules: snapshot.modules.map((m) => ({ name: m.name, status: m.status, functions: [...m.functions] })),
    ...(snapshot.message ? { message: snapshot.message } : {}),
  };
}

export function toListingResponse(listing: LibraryListing): Record<string, unknown> {
  return {
    runtime_health: { status: listing.runtimeHealth.status, version: listing.runtimeHealth.version },
    module_count: listing.moduleCount,
    libraries: listing.libraries.map((m) => ({
      name: m.name,
      engine: m.engine,
      functions: [...m.functions],
    })),
  };
}

export function toExecutionResponse(
  call: { module: string; function: string; args: unknown },
  execution: RuntimeExecution,
): Record<string, unknown> {
  return {
    module: call.module,
    function: call.function,
    args: call.args,
    result: execution.result,
    latency_ms: execution.latencyMs,
    engine_used: execution.engineUsed,
    success: true,
    request_id: execution.requestId,
  };
}
