import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { SimulationModule } from '../simulation/simulation.module';
import { SimulationService } from '../simulation/simulation.service';
import { WebhookOutboxModule } from '../webhook-outbox/webhook-outbox.module';
import { JobSchema } from './job.entity';
import { JobRunner } from './job-runner';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { SIMULATION_PORT } from './simulation.port';

@Module({
  imports: [DatabaseModule.forFeature([JobSchema]), SimulationModule, WebhookOutboxModule],
  controllers: [JobsController],
  providers: [
    JobsRepository,
    JobsService,
    JobRunner,
    { provide: SIMULATION_PORT, useExisting: SimulationService },
  ],
})
export class JobsModule {}
