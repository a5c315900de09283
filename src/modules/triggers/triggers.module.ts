import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { QueryModule } from '../query/query.module';
import { SimulationModule } from '../simulation/simulation.module';
import { WebhookOutboxModule } from '../webhook-outbox/webhook-outbox.module';
import { TriggerEvaluator } from './trigger-evaluator';
import { TriggerFiring } from './trigger-firing';
import { TriggerReader } from './trigger-reader';
import { TriggerFireSchema, TriggerSchema } from './trigger.entity';
import { TriggerRepository } from './trigger.repository';
import { TriggersController } from './triggers.controller';
import { TriggersService } from './triggers.service';

@Module({
  imports: [
    IdempotencyModule,
    DatabaseModule.forFeature([TriggerSchema, TriggerFireSchema]),
    QueryModule,
    SimulationModule,
    WebhookOutboxModule,
    MetricsModule,
  ],
  controllers: [TriggersController],
  providers: [TriggerRepository, TriggersService, TriggerReader, TriggerFiring, TriggerEvaluator],
})
export class TriggersModule {}
