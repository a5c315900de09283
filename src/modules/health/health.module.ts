import { Module } from '@nestjs/common';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { EngineModule } from '../engine/engine.module';
import { LicensingModule } from '../licensing/licensing.module';
import { RuntimeLibraryModule } from '../runtime-library/runtime-library.module';
import { HealthController } from './health.controller';
import { InfrastructureController } from './infrastructure.controller';
import { InfrastructureService } from './infrastructure.service';

@Module({
  imports: [MetricsModule, EngineModule, LicensingModule, RuntimeLibraryModule],
  controllers: [HealthController, InfrastructureController],
  providers: [InfrastructureService],
})
export class HealthModule {}
