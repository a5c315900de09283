import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';

/** The daemon's one Prometheus registry; every module that counts something imports this module. */
@Module({
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
