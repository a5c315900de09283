import { Module } from '@nestjs/common';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { EngineMetrics } from './engine.metrics';
import { EngineService } from './engine.service';
import { ENGINE_PORT } from './engine.types';

@Module({
  imports: [MetricsModule],
  providers: [EngineMetrics, EngineService, { provide: ENGINE_PORT, useExisting: EngineService }],
  exports: [ENGINE_PORT, EngineService],
})
export class EngineModule {}
