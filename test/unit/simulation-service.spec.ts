import { AuditService } from '../../src/modules/audit/audit.service';
import { DataFitService } from '../../src/modules/query/data-fit.service';
import { createHash } from 'node:crypto';
import { AppError } from '../../src/common/errors';
import {
  EngineOutcome,
  EnginePort,
  EngineRequest,
  EngineResult,
  EngineStatus,
} from '../../src/modules/engine/engine.types';
import { RunsRepository } from '../../src/modules/simulation/runs.repository';
import { SimulationRun } from '../../src/modules/simulation/simulation-run.entity';
import { SimulationService } from '../../src/modules/simulation/simulation.service';
import { SimulationRuns } from '../../src/modules/simulation/simulation-runs.service';
import { parseSimulation, storedSimulation } from '../../src/modules/simulation/simulation.types';

/** The /v1/simulate path over a service and a run recorder: parse, simulate, record. */
function routeOver(service: SimulationService, runs: MemoryRuns) {
  const recorder = new SimulationRuns(runs as unknown as RunsRepository);
  const compute = (orgId: string, body: unknown) => service.simulate(parseSimulation(body), { orgId });
  return {
    simulate: async (orgId: string, body: unknown) => recorder.record(await compute(orgId, body)),
    simulateToJson: async (orgId: string, body: unknown) => recorder.recordAsJson(await compute(orgId, body)),
  };
}

class FakeEngine implements EnginePort {
  readonly requests: EngineRequest[] = [];
  failWith?: AppError;
  override: Record<string, unknown> = {};

  async simulate(request: EngineRequest): Promise<EngineOutcome> {
    if (this.failWith) throw this.failWith;
    this.requests.push(request);
    const result = {
      engine_version: '9.9.9',
      runs: request.runs,
      seed: request.seed,
      objective: 'maximize_net_value',
      recommended_action: 'proceed',
      expected_value: 1.25,
      confidence: 0.8,
      evpi: 0.1,
      actions: [],
      sensitivity: [],
      compute_ms: 0.5,
      ...this.override,
    } as unknown as EngineResult;
    return { result, mode: 'subprocess_fallback' };
  }

  status(): EngineStatus {
    throw new Error('not used');
  }
}

class MemoryRuns {
  readonly runs: SimulationRun[] = [];
  async record(run: SimulationRun): Promise<void> {
    this.runs.push(run);
  }
  async recordWhile<T>(run: SimulationRun, meanwhile: () => T): Promise<T> {
    const value = meanwhile();
    this.runs.push(run);
    return value;
  }
  async findById(orgId: string, id: string): Promise<SimulationRun | null> {
    return this.runs.find((r) => r.orgId === orgId && r.id === id) ?? null;
  }
}

const body = {
  runs: 100,
  scenario: { variables: { x: { low: 0, high: 1 } }, objective: 'maximize_net_value' },
};

describe('SimulationService', () => {
  const setup = () => {
    const engine = new FakeEngine();
    const runs = new MemoryRuns();
    return {
      engine,
      runs,
      service: routeOver(new SimulationService(engine, {} as DataFitService, {} as AuditService), runs),
    };
  };

  it('picks a 53-bit seed, sends it to the engine, echoes it and records the run', async () => {
    const { engine, runs, service } = setup();
    const response = await service.simulate('org_1', body);
    const seed = engine.requests[0].seed as number;
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(response).toMatchObject({ engine_mode: 'subprocess_fallback', seed, expected_value: 1.25 });
    expect(runs.runs[0]).toEqual({
      id: response.run_id,
      orgId: 'org_1',
      requestHash: createHash('sha256').update(JSON.stringify(engine.requests[0])).digest('hex'),
      engineVersion: '9.9.9',
      engineMode: 'subprocess_fallback',
      runs: 100,
      seed: String(seed),
      objective: 'maximize_net_value',
      recommendedAction: 'proceed',
      expectedValue: 1.25,
      confidence: 0.8,
      computeMs: 0.5,
      createdAt: expect.any(String),
      inputs: null,
    });
  });

  it('answers the HTTP route with the JSON text of the same answer, and records its run', async () => {
    const { runs, service } = setup();
    const text = await service.simulateToJson('org_1', { ...body, seed: 7 });
    const answer = JSON.parse(text) as { run_id: string };
    expect(answer).toEqual({
      ...(await service.simulate('org_1', { ...body, seed: 7 })),
      run_id: answer.run_id,
    });
    expect(runs.runs[0]).toMatchObject({ id: answer.run_id, orgId: 'org_1', seed: '7' });
  });

  it('refuses an invalid body before the engine, and records nothing when the engine fails', async () => {
    const { engine, runs, service } = setup();
    await expect(service.simulate('org_1', { scenario: {} })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(engine.requests).toHaveLength(0);
    engine.failWith = new AppError('engine_busy');
    await expect(service.simulate('org_1', body)).rejects.toMatchObject({ code: 'engine_busy' });
    expect(runs.runs).toHaveLength(0);
  });

  it.each([
    ['a NaN expected value', { expected_value: Number.NaN }, 'expected_value', 'scenario'],
    [
      'a null (NaN in JSON) mean',
      { actions: [{ name: 'proceed', mean: null }] },
      'actions[0].mean',
      'scenario.variables',
    ],
    [
      'an infinite loss',
      { actions: [{ name: 'a' }, { name: 'b', expected_loss: Infinity }] },
      'actions[1].expected_loss',
      'scenario.variables',
    ],
  ])('refuses %s with 422 validation_failed and records nothing', async (_, override, path, field) => {
    const { engine, runs, service } = setup();
    engine.override = override;
    await expect(service.simulate('org_1', body)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field, problem: expect.stringContaining(`the statistic ${path} is not a finite number`) }],
    });
    expect(runs.runs).toHaveLength(0);
  });

  it('names the model field of the action whose statistic overflowed', async () => {
    const { engine, service } = setup();
    engine.override = { actions: [{ name: 'a' }, { name: 'b', std_dev: null }] };
    const withActions = {
      ...body,
      scenario: { ...body.scenario, model: 'x', actions: [{ name: 'a' }, { name: 'b', model: 'x * 2' }] },
    };
    await expect(service.simulate('org_1', withActions)).rejects.toMatchObject({
      details: [{ field: 'scenario.actions[1].model' }],
    });
  });
});

describe('SimulationService with variables from data', () => {
  const source = (column: string, where?: unknown[]) => ({
    dataset_id: 'ds_1',
    dataset_name: 'orders',
    version: 4,
    column,
    where: where ?? [],
    rows_used: 12,
    rows_matching: 12,
    sampled: false,
  });
  /** Answers fixed fits, so the test sees exactly what the engine is handed. */
  class FixedFits {
    readonly correlated: [string, string][] = [];
    async resolve(_org: string, from: { column: string; where?: unknown[] }, distribution: string) {
      if (distribution === 'empirical') {
        return { source: source(from.column, from.where), distribution, values: Float64Array.of(3, 1, 2) };
      }
      const fits: Record<string, { distribution: string; params: Record<string, number> }> = {
        units: { distribution: 'gamma', params: { shape: 2.5, scale: 4 } },
        cost: { distribution: 'triangular', params: { min: 1, mode: 2, max: 5 } },
      };
      return {
        source: source(from.column, from.where),
        ...fits[from.column],
        fit: { aic: 10, ks_statistic: 0.1 },
      };
    }
    async rankCorrelation(_org: string, _from: unknown, a: string, b: string) {
      this.correlated.push([a, b]);
      return -0.4;
    }
  }
  const records: unknown[] = [];
  const setup = () => {
    const engine = new FakeEngine();
    const runs = new MemoryRuns();
    const fits = new FixedFits();
    const audit = { record: async (entry: unknown) => void records.push(entry) };
    const service = routeOver(
      new SimulationService(engine, fits as unknown as DataFitService, audit as unknown as AuditService),
      runs,
    );
    return { engine, runs, fits, service };
  };
  const west = [{ column: 'region', op: 'eq', value: 'west' }];
  const body = {
    runs: 100,
    seed: 9,
    scenario: {
      variables: {
        demand: { from: { dataset_id: 'ds_1', column: 'units', where: west }, distribution: 'fit' },
        fixed: { low: 1, high: 2 },
        price: { from: { dataset_id: 'ds_1', column: 'price', where: west }, distribution: 'empirical' },
        cost: { from: { dataset_id: 'ds_1', column: 'cost' }, distribution: 'triangular' },
      },
      correlations_from_data: true,
      objective: 'maximize_net_value',
    },
  };

  it('hands the engine each fitted family in its wire form, in declaration order, with the estimated correlations', async () => {
    const { engine, runs, fits, service } = setup();
    const response = await service.simulate('org_1', body);
    const scenario = engine.requests[0].scenario as Record<string, unknown>;
    expect(Object.keys(scenario.variables as object)).toEqual(['demand', 'fixed', 'price', 'cost']);
    expect(scenario.variables).toEqual({
      demand: { distribution: 'gamma', params: { shape: 2.5, scale: 4 } },
      fixed: { low: 1, high: 2 },
      price: { distribution: 'empirical', values: [3, 1, 2] },
      cost: { low: 1, high: 5, distribution: 'triangular', mode: 2 },
    });
    // Only demand and price read the same rows (same dataset, same where).
    expect(fits.correlated).toEqual([['units', 'price']]);
    expect(scenario.correlations).toEqual([{ a: 'demand', b: 'price', rank: -0.4 }]);
    expect(scenario).not.toHaveProperty('correlations_from_data');
    expect(response.inputs).toEqual({
      demand: {
        source: source('units', west),
        distribution: 'gamma',
        params: { shape: 2.5, scale: 4 },
        fit: { aic: 10, ks_statistic: 0.1 },
      },
      price: { source: source('price', west), distribution: 'empirical' },
      cost: {
        source: source('cost'),
        distribution: 'triangular',
        params: { min: 1, mode: 2, max: 5 },
        fit: { aic: 10, ks_statistic: 0.1 },
      },
    });
    expect(JSON.parse(runs.runs[0].inputs ?? 'null')).toEqual(response.inputs);
    expect(records).toContainEqual(
      expect.objectContaining({
        event: 'datasets_read',
        actor: { type: 'system' },
        target: { type: 'simulation_run', id: response.run_id },
        details: {
          datasets: 'ds_1@4',
          inputs: 'demand=ds_1@4.units (12 rows); price=ds_1@4.price (12 rows); cost=ds_1@4.cost (12 rows)',
          kind: 'interactive',
        },
      }),
    );
  });

  it('stores the request with its inputs from data as sent, and reads them only when it runs', () => {
    const { engine, fits } = setup();
    const stored = storedSimulation(parseSimulation(body), true);
    expect(stored.scenario).toEqual({ ...body.scenario });
    expect(stored.seed).toBe(9);
    expect(engine.requests).toHaveLength(0);
    expect(fits.correlated).toHaveLength(0);
    expect(storedSimulation(parseSimulation(stored), true)).toEqual(stored);
  });
});
