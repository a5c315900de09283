import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { AuditModule } from '../audit/audit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { QueryModule } from '../query/query.module';
import { SimulationModule } from '../simulation/simulation.module';
import { WebhookOutboxModule } from '../webhook-outbox/webhook-outbox.module';
import { ExecutionPolicyController } from './execution-policy.controller';
import { ExecutionPolicySnapshotSchema } from './execution-policy.entity';
import { ExecutionPolicyRepository } from './execution-policy.repository';
import { ExecutionPolicyService } from './execution-policy.service';
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
    DatabaseModule.forFeature([TriggerSchema, TriggerFireSchema, ExecutionPolicySnapshotSchema]),
    QueryModule,
    SimulationModule,
    WebhookOutboxModule,
    MetricsModule,
    AuditModule,
  ],
  controllers: [TriggersController, ExecutionPolicyController],
  providers: [
    TriggerRepository,
    TriggersService,
    TriggerReader,
    TriggerFiring,
    TriggerEvaluator,
    ExecutionPolicyRepository,
    ExecutionPolicyService,
  ],
  exports: [TriggersService],
})
export class TriggersModule {}
