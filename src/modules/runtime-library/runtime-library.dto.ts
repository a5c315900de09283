import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ContractComponent } from '../../common/openapi';
import { RuntimeExecution, RuntimeManifest } from './runtime.types';
import { HealthSnapshot, LibraryListing } from './runtime-library.service';

/** Any JSON value: what a runtime function takes and returns is its own business. */
const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type }));

const RUNTIME_STATUSES: readonly HealthSnapshot['status'][] = ['ok', 'degraded', 'unavailable'];

export class RuntimeModuleResponse {
  @ApiProperty({ example: 'finance' })
  name!: string;
  @ApiProperty({ description: 'The engine the module runs on.', example: 'native' })
  engine!: string;
  @ApiProperty({ type: [String], example: ['npv', 'irr'] })
  functions!: string[];
}

export class RuntimeManifestResponse {
  @ApiProperty({ type: [RuntimeModuleResponse] })
  modules!: RuntimeModuleResponse[];
  @ApiProperty({ description: 'The runtime-library build.', example: '1.3.0' })
  version!: string;
}

export class RuntimeModuleHealthResponse {
  @ApiProperty({ example: 'finance' })
  name!: string;
  @ApiProperty({
    description: 'ok, or what the runtime says is wrong; unknown when it does not say.',
    example: 'ok',
  })
  status!: string;
  @ApiProperty({ type: [String], example: ['npv', 'irr'] })
  functions!: string[];
}

export class RuntimeHealthResponse {
  @ApiProperty({ enum: RUNTIME_STATUSES })
  status!: HealthSnapshot['status'];
  @ApiProperty({ format: 'date-time' })
  checked_at!: string;
  @ApiProperty({ type: 'string', nullable: true, example: '1.3.0' })
  version!: string | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'Seconds the runtime daemon has been up.' })
  uptime_s!: number | null;
  @ApiProperty({
    description: 'Whether this daemon started the runtime itself (development) rather than systemd.',
  })
  supervised!: boolean;
  @ApiProperty({ type: 'integer', nullable: true })
  pid!: number | null;
  @ApiProperty({ type: 'integer', description: 'Restarts by this daemon since it started.' })
  restarts!: number;
  @ApiProperty({ type: [RuntimeModuleHealthResponse] })
  modules!: RuntimeModuleHealthResponse[];
  @ApiPropertyOptional({ description: 'Why the runtime is unavailable.' })
  message?: string;
}

export class RuntimeLibraryStatusResponse {
  @ApiProperty({ enum: RUNTIME_STATUSES })
  status!: HealthSnapshot['status'];
  @ApiProperty({ type: 'string', nullable: true, example: '1.3.0' })
  version!: string | null;
  @ApiProperty()
  supervised!: boolean;
  @ApiProperty({ type: 'integer' })
  restarts!: number;
  @ApiProperty({ format: 'date-time' })
  last_health_check!: string;
}

export function toManifestResponse(manifest: RuntimeManifest): RuntimeManifestResponse {
  return {
    modules: manifest.modules.map((m) => ({ name: m.name, engine: m.engine, functions: [...m.functions] })),
    version: manifest.version,
  };
}

export function toHealthResponse(snapshot: HealthSnapshot): RuntimeHealthResponse {
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

export function toRuntimeLibraryStatusResponse(snapshot: HealthSnapshot): RuntimeLibraryStatusResponse {
  return {
    status: snapshot.status,
    version: snapshot.version,
    supervised: snapshot.supervised,
    restarts: snapshot.restarts,
    last_health_check: snapshot.checkedAt,
  };
}

export class RuntimeListingHealth {
  @ApiProperty({ description: 'The last health check: ok, degraded or unavailable.', example: 'ok' })
  status!: string;
  @ApiPropertyOptional({ example: '1.3.0' })
  version?: string;
}

@ContractComponent()
export class RuntimeLibraryListingResponse {
  @ApiProperty({ type: RuntimeListingHealth })
  runtime_health!: RuntimeListingHealth;
  @ApiProperty({ type: 'integer', description: 'Modules in the library, before `search` and `limit`.' })
  module_count!: number;
  @ApiProperty({ type: [RuntimeModuleResponse] })
  libraries!: RuntimeModuleResponse[];
}

@ContractComponent()
export class RuntimeExecutionResponse {
  @ApiProperty({ example: 'finance' })
  module!: string;
  @ApiProperty({ example: 'npv' })
  function!: string;
  @ApiProperty({
    description: 'The arguments as sent: an object, an array, a scalar or null.',
    oneOf: ANY_JSON,
  })
  args!: unknown;
  @ApiProperty({ description: 'What the function returned, as JSON.', oneOf: ANY_JSON })
  result!: unknown;
  @ApiProperty({ type: 'number' })
  latency_ms!: number;
  @ApiProperty({ example: 'native' })
  engine_used!: string;
  @ApiProperty({ enum: [true] })
  success!: boolean;
  @ApiPropertyOptional({ description: 'The request id the runtime echoed, as it sent it.', oneOf: ANY_JSON })
  request_id?: unknown;
}

export function toListingResponse(listing: LibraryListing): RuntimeLibraryListingResponse {
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
): RuntimeExecutionResponse {
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
