import { Injectable } from '@nestjs/common';
import { EngineService } from '../engine/engine.service';
import { LicenseSummary, LicensingService } from '../licensing/licensing.service';
import { RuntimeLibraryService } from '../runtime-library/runtime-library.service';

export interface InfrastructureReport {
  readonly engine_mode: string;
  readonly engine_version: string | null;
  readonly last_health_check: string | null;
  readonly pool: {
    readonly size: number;
    readonly busy: number;
    readonly queued: number;
    readonly restarts: number;
  };
  readonly runtime_library: Readonly<Record<string, unknown>>;
  readonly license: LicenseSummary;
  /** The Node.js runtime serving this request, as `process.version` spells it. */
  readonly node_version: string;
}

/** The authoritative engine signal (spec: GET /v1/infrastructure), plus the runtime library and the license. */
@Injectable()
export class InfrastructureService {
  constructor(
    private readonly engine: EngineService,
    private readonly licensing: LicensingService,
    private readonly runtime: RuntimeLibraryService,
  ) {}

  async report(): Promise<InfrastructureReport> {
    const engine = this.engine.status();
    return {
      engine_mode: engine.mode,
      engine_version: engine.version,
      last_health_check: engine.lastHealthCheck,
      pool: engine.pool,
      runtime_library: await this.runtime.runtimeLibraryStatus(),
      license: this.licensing.licenseSummary(),
      node_version: process.version,
    };
  }
}
