import { Inject, Injectable, Optional } from '@nestjs/common';
import { ENTITLEMENT_SOURCE, EntitlementSource } from '../licensing/entitlements';
import { EngineService } from './engine.service';
import {
  isLicenseSummarySource,
  LicenseSummary,
  RUNTIME_LIBRARY_STATUS,
  RuntimeLibraryStatusSource,
  UNLICENSED_COMMUNITY,
} from './infrastructure.types';

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
    @Inject(ENTITLEMENT_SOURCE) private readonly entitlements: EntitlementSource,
    @Optional() @Inject(RUNTIME_LIBRARY_STATUS) private readonly runtime?: RuntimeLibraryStatusSource,
  ) {}

  async report(): Promise<InfrastructureReport> {
    const engine = this.engine.status();
    return {
      engine_mode: engine.mode,
      engine_version: engine.version,
      last_health_check: engine.lastHealthCheck,
      pool: engine.pool,
      runtime_library: this.runtime ? await this.runtime.runtimeLibraryStatus() : { status: 'unknown' },
      license: isLicenseSummarySource(this.entitlements)
        ? this.entitlements.licenseSummary()
        : UNLICENSED_COMMUNITY,
      node_version: process.version,
    };
  }
}
