import { Module } from '@nestjs/common';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { EngineMetrics } from './engine.metrics';
import { EngineService } from './engine.service';
import { ENGINE_PORT } from './engine.types';
import { InfrastructureController } from './infrastructure.controller';
import { InfrastructureService } from './infrastructure.service';

@Module({
  imports: [MetricsModule],
  controllers: [InfrastructureController],
  providers: [
    EngineMetrics,
    EngineService,
    { provide: ENGINE_PORT, useExisting: EngineService },
    InfrastructureService,
  ],
  exports: [ENGINE_PORT, EngineService],
})
export class EngineModule {}
