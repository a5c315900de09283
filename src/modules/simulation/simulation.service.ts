import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ENGINE_PORT, EnginePort, EngineWorkKind } from '../engine/engine.types';
import { AppError } from '../../common/errors';
import { AuditService } from '../audit/audit.service';
import { AuditActor } from '../audit/audit.types';
import { DataFitService } from '../query/data-fit.service';
import { assertFiniteResult } from './result-guard';
import { DataInputs, engineVariable, InputProvenance, provenanceOf, sameRows } from './data-inputs';
import { ParsedSimulation, pickSeed } from './simulation.types';
import { SimulationRun } from './simulation-run.entity';
import { SimulationResponse, toSimulationResponse } from './simulation.dto';
import { seedToJson, toEngineRequest } from './simulation-request';

export interface ComputedSimulation {
  readonly response: SimulationResponse;
  readonly run: SimulationRun;
}

/** Who runs a simulation and how: the organization, the actor its dataset reads are audited as, the engine queue. */
export interface SimulationCall {
  readonly orgId: string;
  readonly actor?: AuditActor;
  readonly kind?: EngineWorkKind;
}

@Injectable()
export class SimulationService {
  constructor(
    @Inject(ENGINE_PORT) private readonly engine: EnginePort,
    private readonly fits: DataFitService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Not recorded here: the caller records the run (SimulationRuns), alone or in its own transaction with what the
   * result changes (a job's finish, a trigger's fire).
   */
  async simulate(parsed: ParsedSimulation, call: SimulationCall): Promise<ComputedSimulation> {
    const { request, inputs } = parsed;
    const { orgId, kind = 'interactive', actor = SYSTEM } = call;
    const seed = request.seed ?? pickSeed();
    const engineRequest = toEngineRequest(request, seed);
    // Without inputs from data the engine gets the request in this same tick, as a pool slot is free.
    const provenance =
      inputs.variables.size > 0 ? await this.resolveInputs(orgId, inputs, engineRequest) : undefined;
    const computing = this.engine.simulate(engineRequest, { orgId, kind });
    // Done while the engine computes rather than after it (the worker is another process).
    const id = `run_${randomUUID().replaceAll('-', '')}`;
    if (provenance) await this.auditReads(orgId, actor, id, kind, provenance);
    const requestHash = createHash('sha256').update(JSON.stringify(engineRequest)).digest('hex');
    const { result, mode } = await computing;
    assertFiniteResult(request, result);
    const run: SimulationRun = {
      id,
      orgId,
      requestHash,
      engineVersion: result.engine_version,
      engineMode: mode,
      runs: result.runs,
      seed: seed.toString(),
      objective: request.scenario.objective,
      recommendedAction: result.recommended_action,
      expectedValue: result.expected_value,
      confidence: result.confidence,
      computeMs: result.compute_ms,
      createdAt: new Date().toISOString(),
      inputs: provenance ? JSON.stringify(provenance) : null,
    };
    const response = toSimulationResponse(run.id, mode, result, seedToJson(seed));
    return { response: provenance ? { ...response, inputs: provenance } : response, run };
  }

  private auditReads(
    orgId: string,
    actor: AuditActor,
    runId: string,
    kind: EngineWorkKind,
    provenance: Readonly<Record<string, InputProvenance>>,
  ): Promise<void> {
    const sources = Object.entries(provenance).map(([name, input]) => ({ name, ...input.source }));
    const datasets = [...new Set(sources.map((s) => `${s.dataset_id}@${s.version}`))];
    return this.audit.record({
      event: 'datasets_read',
      orgId,
      actor,
      target: { type: 'simulation_run', id: runId },
      details: {
        datasets: datasets.join(','),
        inputs: sources
          .map((s) => `${s.name}=${s.dataset_id}@${s.version}.${s.column} (${s.rows_used} rows)`)
          .join('; '),
        kind,
      },
    });
  }

  /** Estimated rank correlations never override a pair the caller set. */
  private async resolveInputs(
    orgId: string,
    inputs: DataInputs,
    engineRequest: Record<string, unknown>,
  ): Promise<Record<string, InputProvenance>> {
    const scenario = engineRequest.scenario as Record<string, unknown>;
    const variables = scenario.variables as Record<string, unknown>;
    const provenance: Record<string, InputProvenance> = {};
    for (const [name, variable] of inputs.variables) {
      const resolved = await namingVariable(name, () =>
        this.fits.resolve(orgId, variable.from, variable.distribution),
      );
      variables[name] = engineVariable(resolved);
      provenance[name] = provenanceOf(resolved);
    }
    if (inputs.correlationsFromData) {
      const given = Array.isArray(scenario.correlations)
        ? (scenario.correlations as { a: string; b: string }[])
        : [];
      const isGiven = (a: string, b: string): boolean =>
        given.some((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a));
      const estimated: { a: string; b: string; rank: number }[] = [];
      const entries = [...inputs.variables];
      for (let i = 0; i < entries.length; i++) {
        for (let j = i + 1; j < entries.length; j++) {
          const [a, first] = entries[i];
          const [b, second] = entries[j];
          if (!sameRows(first.from, second.from) || isGiven(a, b)) continue;
          const rank = await namingVariable(b, () =>
            this.fits.rankCorrelation(orgId, first.from, first.from.column, second.from.column),
          );
          estimated.push({ a, b, rank });
        }
      }
      if (estimated.length > 0) scenario.correlations = [...given, ...estimated];
    }
    return provenance;
  }
}

/** The actor of a run no caller asked for just then: a job's or a trigger's. */
const SYSTEM: AuditActor = { type: 'system' };

/** The client's mistakes in an input from data; anything else (a timeout, the store) passes through as it is. */
const NAMED_CODES: ReadonlySet<string> = new Set([
  'validation_failed',
  'dataset_not_found',
  'column_not_numeric',
  'insufficient_data',
]);

/** An error reading a variable's data, its fields named under that variable (`scenario.variables.demand.from.column`). */
async function namingVariable<T>(name: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof AppError) || !NAMED_CODES.has(error.code)) throw error;
    const field = `scenario.variables.${name}`;
    const details =
      error.details && error.details.length > 0
        ? error.details.map((d) => ({
            ...d,
            field: d.field === 'distribution' ? `${field}.distribution` : `${field}.from.${d.field}`,
          }))
        : [{ field: `${field}.from`, problem: error.message }];
    throw new AppError(error.code, `Variable "${name}": ${error.message}`, details);
  }
}
