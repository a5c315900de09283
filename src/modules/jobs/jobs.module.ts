import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SimulationModule } from '../simulation/simulation.module';
import { WebhookOutboxModule } from '../webhook-outbox/webhook-outbox.module';
import { JobSchema } from './job.entity';
import { JobRunner } from './job-runner';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

@Module({
  imports: [IdempotencyModule, DatabaseModule.forFeature([JobSchema]), SimulationModule, WebhookOutboxModule],
  controllers: [JobsController],
  providers: [JobsRepository, JobsService, JobRunner],
})
export class JobsModule {}
