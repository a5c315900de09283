import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { QueryModule } from '../query/query.module';
import { SimulationModule } from '../simulation/simulation.module';
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
  ],
  controllers: [TriggersController],
  providers: [TriggerRepository, TriggersService],
})
export class TriggersModule {}
