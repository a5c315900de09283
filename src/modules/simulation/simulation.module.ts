import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { AuditModule } from '../audit/audit.module';
import { EngineModule } from '../engine/engine.module';
import { QueryModule } from '../query/query.module';
import { RunsRepository } from './runs.repository';
import { SimulationRunSchema } from './simulation-run.entity';
import { SimulationController } from './simulation.controller';
import { SimulationRuns } from './simulation-runs.service';
import { SimulationService } from './simulation.service';

@Module({
  imports: [DatabaseModule.forFeature([SimulationRunSchema]), EngineModule, QueryModule, AuditModule],
  controllers: [SimulationController],
  providers: [SimulationService, SimulationRuns, RunsRepository],
  exports: [SimulationService, SimulationRuns],
})
export class SimulationModule {}
