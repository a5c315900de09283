import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import type { Transaction } from '../../common/database';
import { PreparedWrite } from '../../common/database/prepared-write';
import { SimulationRun, SimulationRunSchema } from './simulation-run.entity';

/** Column order of the insert; written out so the hot path builds no query. */
const RUN_COLUMNS: readonly (readonly [keyof SimulationRun, string])[] = [
  ['id', 'id'],
  ['orgId', 'org_id'],
  ['requestHash', 'request_hash'],
  ['engineVersion', 'engine_version'],
  ['engineMode', 'engine_mode'],
  ['runs', 'runs'],
  ['seed', 'seed'],
  ['objective', 'objective'],
  ['recommendedAction', 'recommended_action'],
  ['expectedValue', 'expected_value'],
  ['confidence', 'confidence'],
  ['computeMs', 'compute_ms'],
  ['createdAt', 'created_at'],
  ['inputs', 'inputs'],
];
const INSERT_RUN =
  `insert into simulation_runs (${RUN_COLUMNS.map(([, column]) => column).join(', ')}) ` +
  `values (${RUN_COLUMNS.map(() => '?').join(', ')})`;

const runParams = (run: SimulationRun): unknown[] => RUN_COLUMNS.map(([key]) => run[key] ?? null);

@Injectable()
export class RunsRepository {
  private readonly insertRun: PreparedWrite;

  constructor(private readonly em: EntityManager) {
    this.insertRun = new PreparedWrite(em, INSERT_RUN);
  }

  /**
   * One committed insert, awaited by /v1/simulate before it answers, so a run id it returns is always found. A
   * prepared statement rather than `em.insert`: query building, the fork and per-call prepare cost more than the
   * write itself on this path.
   */
  async record(run: SimulationRun): Promise<void> {
    await this.insertRun.run(runParams(run));
  }

  /** `record`, with `meanwhile` done on this thread while the insert runs on the driver's (PreparedWrite.runWhile). */
  recordWhile<T>(run: SimulationRun, meanwhile: () => T): Promise<T> {
    return this.insertRun.runWhile(runParams(run), meanwhile);
  }

  /** Runs written in the caller's transaction with what they caused (jobs' outcomes, a trigger's fire): one insert. */
  insertAll(tx: Transaction, runs: readonly SimulationRun[]): Promise<void> {
    return tx.insertAll(SimulationRunSchema, runs);
  }

  /** Scoped to the organization: another organization's run id is simply not found. */
  async findById(orgId: string, id: string): Promise<SimulationRun | null> {
    return this.em.fork().findOne(SimulationRunSchema, { id, orgId });
  }
}
