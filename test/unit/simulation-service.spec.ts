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
      service: new SimulationService(
        engine,
        runs as unknown as RunsRepository,
        {} as DataFitService,
        {} as AuditService,
      ),
    };
  };

  it('picks a 53-bit seed, sends it to the engine, echoes it and records the run', async () => {
    const { engine, runs, service } = setup();
    const response = await service.simulate({ orgId: 'org_1' } as never, body);
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
    const text = await service.simulateToJson({ orgId: 'org_1' } as never, { ...body, seed: 7 });
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
