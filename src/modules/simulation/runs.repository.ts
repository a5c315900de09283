import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { SimulationRun, SimulationRunSchema } from './simulation-run.entity';

@Injectable()
export class RunsRepository {
  constructor(private readonly em: EntityManager) {}

  async record(run: SimulationRun): Promise<void> {
    await this.em.fork().insert(SimulationRunSchema, run);
  }

  /** Scoped to the organization: another organization's run id is simply not found. */
  async findById(orgId: string, id: string): Promise<SimulationRun | null> {
    return this.em.fork().findOne(SimulationRunSchema, { id, orgId });
  }
}
