import { StoreOrm } from '../../src/common/database';
import { RunsRepository } from '../../src/modules/simulation/runs.repository';
import { SimulationRun, SimulationRunSchema } from '../../src/modules/simulation/simulation-run.entity';
import { openRepositoryStore, RepositoryStore } from '../support/test-store';

let store: RepositoryStore;
let orm: StoreOrm;
let runs: RunsRepository;

const run = (id: string, orgId = 'org_a'): SimulationRun => ({
  id,
  orgId,
  requestHash: 'ab'.repeat(32),
  engineVersion: '1.2.3',
  engineMode: 'pool',
  runs: 10_000,
  seed: '18446744073709551615',
  objective: 'maximize_net_value',
  recommendedAction: 'proceed',
  expectedValue: -0.1 + 0.2,
  confidence: 0.8125,
  computeMs: 0.337,
  createdAt: '2026-11-26T03:00:00.000Z',
  inputs: null,
});

beforeAll(async () => {
  store = await openRepositoryStore([SimulationRunSchema], 'ds-runs-');
  orm = store.orm;
  runs = new RunsRepository(orm.em);
});

afterAll(async () => {
  await store.close();
});

describe('RunsRepository (a prepared insert on SQLite, the same SQL executed on PostgreSQL)', () => {
  it('records every field exactly, each insert with its own values', async () => {
    await runs.record(run('run_1'));
    await runs.record({ ...run('run_2'), recommendedAction: 'do_nothing', runs: 7 });
    expect(await runs.findById('org_a', 'run_1')).toEqual(run('run_1'));
    expect(await runs.findById('org_a', 'run_2')).toMatchObject({ recommendedAction: 'do_nothing', runs: 7 });
    const inputs = JSON.stringify({
      demand: { source: { dataset_id: 'ds_1', version: 2 }, distribution: 'empirical' },
    });
    await runs.record({ ...run('run_3'), inputs });
    expect((await runs.findById('org_a', 'run_3'))?.inputs).toBe(inputs);
    expect(await runs.findById('org_b', 'run_1')).toBeNull();
  });

  it('refuses a duplicate id instead of overwriting the first run', async () => {
    await runs.record(run('run_dup'));
    await expect(runs.record({ ...run('run_dup'), expectedValue: 99 })).rejects.toThrow(/unique constraint/i);
    expect((await runs.findById('org_a', 'run_dup'))?.expectedValue).toBe(run('run_dup').expectedValue);
  });

  it('does the work given beside the insert and answers it only once the run is found', async () => {
    expect(await runs.recordWhile(run('run_beside'), () => 'the answer')).toBe('the answer');
    expect(await runs.findById('org_a', 'run_beside')).toEqual(run('run_beside'));
  });

  it('refuses with the error of a failed insert, whatever the work beside it did', async () => {
    await runs.record(run('run_twice'));
    await expect(runs.recordWhile(run('run_twice'), () => 'the answer')).rejects.toThrow(
      /unique constraint/i,
    );
    await expect(
      runs.recordWhile(run('run_twice'), () => {
        throw new Error('serialising failed');
      }),
    ).rejects.toThrow(/unique constraint/i);
    await expect(
      runs.recordWhile(run('run_once_more'), () => {
        throw new Error('serialising failed');
      }),
    ).rejects.toThrow('serialising failed');
    expect(await runs.findById('org_a', 'run_once_more')).toMatchObject({ id: 'run_once_more' });
  });

  it('never joins a transaction another unit of work holds open, so its rollback does not undo the run', async () => {
    let recorded = false;
    let pending: Promise<void> | undefined;
    await expect(
      orm.em.fork().transactional(async (em) => {
        await em.execute("insert into appliance_state (key, value, updated_at) values ('k', 'v', 'now')");
        pending = runs.record(run('run_tx')).then(() => {
          recorded = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        // SQLite has one writer: the insert waits for the transaction to end. PostgreSQL runs it beside it.
        if (process.env.TEST_STORE !== 'postgresql') expect(recorded).toBe(false);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await pending;
    expect(recorded).toBe(true);
    expect(await runs.findById('org_a', 'run_tx')).toMatchObject({ id: 'run_tx' });
    const state = await orm.em.getConnection().execute("select value from appliance_state where key = 'k'");
    expect(state).toEqual([]);
  });
});
