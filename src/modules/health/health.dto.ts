import { TlsStatus, TlsSummaryResponse, toTlsSummary } from '../../common/tls';
import { ApiProperty } from '@nestjs/swagger';
import { LicenseSummaryResponse } from '../licensing/licensing.dto';
import { LicenseSummary } from '../licensing/licensing.service';
import { ENGINE_MODES, EngineMode, EngineStatus } from '../engine/engine.types';
import {
  RuntimeLibraryStatusResponse,
  toRuntimeLibraryStatusResponse,
} from '../runtime-library/runtime-library.dto';
import { HealthSnapshot } from '../runtime-library/runtime-library.service';
import { StorageStatus } from './disk-space';
import type { StoreStatus } from '../../common/database';
import type { BuildInfo } from '../../common/build-info';

export class HealthResponse {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
  @ApiProperty({ format: 'date-time' })
  timestamp!: string;
}

export class StorageStatusResponse {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status!: StorageStatus['status'];
  @ApiProperty({ type: 'integer', description: 'Bytes an unprivileged writer may still use.' })
  free_bytes!: number;
  @ApiProperty({ type: 'integer', description: 'SERVICE_MIN_FREE_DISK_MB in bytes.' })
  min_free_bytes!: number;
}

export class StoreStatusResponse {
  @ApiProperty({
    enum: ['ok', 'unavailable'],
    description:
      'Whether the store can serve writes: the SQLite file takes a write (probed at most every 10 s while it does), or the PostgreSQL database answers.',
  })
  status!: StoreStatus;
}

export class ReadinessResponse {
  @ApiProperty({ enum: ['ready', 'not_ready'] })
  status!: 'ready' | 'not_ready';
  @ApiProperty({ type: StorageStatusResponse })
  storage!: StorageStatusResponse;
  @ApiProperty({ type: StoreStatusResponse })
  store!: StoreStatusResponse;
}

export class EnginePoolResponse {
  @ApiProperty({ type: 'integer', description: 'Warm workers configured (ENGINE_POOL_SIZE).' })
  size!: number;
  @ApiProperty({ type: 'integer' })
  busy!: number;
  @ApiProperty({ type: 'integer', description: 'Requests waiting for a free worker.' })
  queued!: number;
  @ApiProperty({ type: 'integer', description: 'Workers replaced since start.' })
  restarts!: number;
}

export class BuildInfoResponse {
  @ApiProperty({
    description:
      'The Debian package version this build was installed from, or `development` for a source checkout.',
    example: '0.1.0-1',
  })
  package_version!: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The git commit the package was built from (`+modified` when its tree had uncommitted changes); in a checkout its HEAD.',
    example: '3f6c0e9b8d1c4e2a7b5d9f0a1c2e3b4d5f6a7b8c',
  })
  source_commit!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Where the package installed its CycloneDX SBOM; null in a checkout.',
    example: '/usr/share/doc/decision-service/sbom.cdx.json',
  })
  sbom_path!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'SHA-256 of that SBOM file, hex; null in a checkout.',
  })
  sbom_sha256!: string | null;
}

export class InfrastructureResponse {
  @ApiProperty({ enum: ENGINE_MODES, description: 'The authoritative engine signal.' })
  engine_mode!: EngineMode;
  @ApiProperty({ type: 'string', nullable: true, example: '2.1.0' })
  engine_version!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_health_check!: string | null;
  @ApiProperty({ type: EnginePoolResponse })
  pool!: EnginePoolResponse;
  @ApiProperty({ type: RuntimeLibraryStatusResponse })
  runtime_library!: RuntimeLibraryStatusResponse;
  @ApiProperty({ type: LicenseSummaryResponse })
  license!: LicenseSummaryResponse;
  @ApiProperty({ description: 'The Node.js runtime serving this request.', example: 'v24.11.0' })
  node_version!: string;
  @ApiProperty({ type: TlsSummaryResponse, description: 'How the API is served: TLS mode and certificate.' })
  tls!: TlsSummaryResponse;
  @ApiProperty({
    type: BuildInfoResponse,
    description: 'The build serving this request: package, source commit, SBOM.',
  })
  build!: BuildInfoResponse;
}

export interface InfrastructureView {
  readonly engine: EngineStatus;
  readonly runtimeLibrary: HealthSnapshot;
  readonly license: LicenseSummary;
  readonly nodeVersion: string;
  readonly tls: TlsStatus;
  readonly build: BuildInfo;
}

export function toInfrastructureResponse(view: InfrastructureView): InfrastructureResponse {
  return {
    engine_mode: view.engine.mode,
    engine_version: view.engine.version,
    last_health_check: view.engine.lastHealthCheck,
    pool: { ...view.engine.pool },
    runtime_library: toRuntimeLibraryStatusResponse(view.runtimeLibrary),
    license: { edition: view.license.edition, status: view.license.status },
    node_version: view.nodeVersion,
    tls: toTlsSummary(view.tls),
    build: {
      package_version: view.build.packageVersion,
      source_commit: view.build.sourceCommit,
      sbom_path: view.build.sbomPath,
      sbom_sha256: view.build.sbomSha256,
    },
  };
}

export function toReadinessResponse(storage: StorageStatus, store: StoreStatus): ReadinessResponse {
  const ready = storage.status === 'ok' && store === 'ok';
  return { status: ready ? 'ready' : 'not_ready', storage: { ...storage }, store: { status: store } };
}
