import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { DatabaseModule } from '../../common/database';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { MetricsService } from '../../common/metrics/metrics.service';
import { EgressDecisionSchema } from './egress-decision.entity';
import { EgressDecisionRepository } from './egress-decision.repository';
import { EgressGuardService } from './egress-guard.service';
import { EgressLogService } from './egress-log.service';
import { loadEgressPolicy } from './egress-policy.loader';
import { EGRESS_GUARD } from './egress.types';

@Global()
@Module({
  imports: [DatabaseModule.forFeature([EgressDecisionSchema]), MetricsModule],
  providers: [
    EgressDecisionRepository,
    {
      provide: EgressGuardService,
      inject: [APP_CONFIG, APP_LOGGER, MetricsService, EgressDecisionRepository],
      useFactory: (
        config: AppConfig,
        logger: AppLogger,
        metrics: MetricsService,
        log: EgressDecisionRepository,
      ) =>
        new EgressGuardService({
          policy: loadEgressPolicy(config),
          sink: log,
          logger,
          decisions: metrics.counter({
            name: 'egress_decisions_total',
            help: 'Egress guard decisions by purpose and outcome',
            labelNames: ['purpose', 'decision'],
          }),
        }),
    },
    { provide: EGRESS_GUARD, useExisting: EgressGuardService },
    EgressLogService,
  ],
  exports: [EGRESS_GUARD, EgressGuardService, EgressLogService],
})
export class EgressModule implements OnApplicationShutdown {
  constructor(@Inject(EgressGuardService) private readonly guard: EgressGuardService) {}

  async onApplicationShutdown(): Promise<void> {
    await this.guard.close();
  }
}
