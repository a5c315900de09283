import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../common/database';
import { RunsRepository } from './runs.repository';
import { SimulationRun } from './simulation-run.entity';
import type { SimulationResponse } from './simulation.dto';
import type { ComputedSimulation } from './simulation.service';

/** Records computed simulations: alone, before their answer, or in a caller's transaction. */
@Injectable()
export class SimulationRuns {
  constructor(private readonly runs: RunsRepository) {}

  async record({ response, run }: ComputedSimulation): Promise<SimulationResponse> {
    await this.runs.record(run);
    return response;
  }

  /**
   * `record` for the HTTP route: the answer as its JSON text, serialised while the run's insert runs on the SQLite
   * driver's thread, and returned only once the run has committed.
   */
  recordAsJson({ response, run }: ComputedSimulation): Promise<string> {
    return this.runs.recordWhile(run, () => JSON.stringify(response));
  }

  /** Runs written in the caller's transaction, in one insert: they exist iff that transaction commits. */
  recordAll(tx: Transaction, runs: readonly SimulationRun[]): Promise<void> {
    return this.runs.insertAll(tx, runs);
  }

  /** A recorded run of the organization, or null. */
  find(orgId: string, runId: string): Promise<SimulationRun | null> {
    return this.runs.findById(orgId, runId);
  }
}
