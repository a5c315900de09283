import { Injectable } from '@nestjs/common';
import { TlsCertificates } from '../../common/tls';
import { BuildInfo, readBuildInfo } from '../../common/build-info';
import { APP_ROOT } from '../../common/config';
import { EngineService } from '../engine/engine.service';
import { LicensingService } from '../licensing/licensing.service';
import { RuntimeLibraryService } from '../runtime-library/runtime-library.service';
import { InfrastructureView } from './health.dto';

@Injectable()
export class InfrastructureService {
  private readonly build: BuildInfo = readBuildInfo(APP_ROOT);

  constructor(
    private readonly engine: EngineService,
    private readonly licensing: LicensingService,
    private readonly runtime: RuntimeLibraryService,
    private readonly tls: TlsCertificates,
  ) {}

  async report(): Promise<InfrastructureView> {
    return {
      engine: this.engine.status(),
      runtimeLibrary: await this.runtime.lastHealthSnapshot(),
      license: this.licensing.licenseSummary(),
      nodeVersion: process.version,
      tls: this.tls.status(),
      build: this.build,
    };
  }
}
