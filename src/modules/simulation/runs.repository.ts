import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { SimulationRun, SimulationRunSchema } from './simulation-run.entity';

/** Column order of INSERT_RUN; written out so the hot path builds no query (portable SQL, `?` placeholders). */
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
];
const INSERT_RUN =
  `insert into simulation_runs (${RUN_COLUMNS.map(([, column]) => column).join(', ')}) ` +
  `values (${RUN_COLUMNS.map(() => '?').join(', ')})`;

@Injectable()
export class RunsRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * One committed insert, awaited by /v1/simulate before it answers, so a run id it returns is always found.
   * Raw SQL rather than `em.insert`: the ORM's query building and fork cost more than the write itself on this path.
   */
  async record(run: SimulationRun): Promise<void> {
    await this.em.getConnection().execute(
      INSERT_RUN,
      RUN_COLUMNS.map(([key]) => run[key]),
      'run',
    );
  }

  /** Scoped to the organization: another organization's run id is simply not found. */
  async findById(orgId: string, id: string): Promise<SimulationRun | null> {
    return this.em.fork().findOne(SimulationRunSchema, { id, orgId });
  }
}
