import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ENGINE_PORT, EnginePort, EngineWorkKind } from '../engine/engine.types';
import { Principal } from '../../common/auth/principal';
import type { Transaction } from '../../common/database';
import { AppError } from '../../common/errors';
import { AuditService } from '../audit/audit.service';
import { actorOf, AuditActor } from '../audit/audit.types';
import { DataFitService } from '../query/data-fit.service';
import { assertFiniteResult } from './result-guard';
import { readPlainRequest } from './plain-request';
import {
  DataInputs,
  engineVariable,
  InputProvenance,
  dataInputsOf,
  NO_DATA_INPUTS,
  provenanceOf,
  sameRows,
  withDataInputs,
} from './data-inputs';
import { RunsRepository } from './runs.repository';
import { SimulationRun } from './simulation-run.entity';
import { parseWire } from '../../common/validation';
import {
  SimulateRequest,
  SimulationResponse,
  toSimulationRequest,
  toSimulationResponse,
} from './simulation.dto';
import { seedToJson, SimulationRequest, toEngineRequest } from './simulation-request';
import { assertValidCorrelations } from './correlation-matrix';

/** A simulation computed but not yet recorded: its answer, and the run `recordRuns` writes. */
export interface ComputedSimulation {
  readonly response: SimulationResponse;
  readonly run: SimulationRun;
}

/** A request whose correlations the engine would refuse is refused now (a job or trigger stores it to run later). */
function checked(request: SimulationRequest): SimulationRequest {
  assertValidCorrelations(request);
  return request;
}

/** A validated `/v1/simulate` body: the request the engine takes, and its inputs from data, resolved when it runs. */
export interface ParsedSimulation {
  readonly request: SimulationRequest;
  readonly inputs: DataInputs;
}

/** Runs simulations for an organization and records each run; the jobs and triggers modules call it too. */
@Injectable()
export class SimulationService {
  constructor(
    @Inject(ENGINE_PORT) private readonly engine: EnginePort,
    private readonly runs: RunsRepository,
    private readonly fits: DataFitService,
    private readonly audit: AuditService,
  ) {}

  /**
   * A body checked with the DTO's rules (the HTTP body, a job's stored request; or one a DTO already validated), the
   * common shape first without the DTO classes (plain-request.ts). Throws AppError validation_failed (422, every
   * problem in `details`) for one the engine would refuse, and
   * correlation_matrix_invalid for rank correlations that are not a valid matrix.
   */
  parse(body: unknown): ParsedSimulation {
    const dto = body instanceof SimulateRequest ? body : undefined;
    const plain = dto ? undefined : readPlainRequest(body);
    if (plain) return { request: plain, inputs: NO_DATA_INPUTS };
    const validated = dto ?? parseWire(SimulateRequest, body);
    return { request: checked(toSimulationRequest(validated)), inputs: dataInputsOf(validated.scenario) };
  }

  /**
   * `parse` for the common body shape only (plain-request.ts), without the DTO classes; undefined for anything
   * else, which the caller then validates with its own DTO so that problems are named from its body's root.
   */
  parsePlain(body: unknown): ParsedSimulation | undefined {
    const request = readPlainRequest(body);
    return request && { request, inputs: NO_DATA_INPUTS };
  }

  /**
   * The request as it will run, JSON-safe, for a caller that stores it to run later: with `fixSeed` a seed is
   * picked when the caller gave none, so running it again gives the same numbers; inputs from data stay as given
   * (a dataset id names one immutable version, so they resolve the same way whenever it runs).
   */
  stored(parsed: ParsedSimulation, fixSeed: boolean): Record<string, unknown> {
    const seed = parsed.request.seed ?? (fixSeed ? pickSeed() : undefined);
    return withDataInputs(toEngineRequest(parsed.request, seed), parsed.inputs);
  }

  /**
   * Validates, computes and records one simulation. Throws AppError: validation_failed, engine_busy,
   * engine_timeout, engine_unavailable, internal_error, and for inputs from data dataset_not_found,
   * column_not_numeric, insufficient_data, query_timeout.
   */
  async simulate(
    caller: Principal | string,
    body: unknown,
    kind: EngineWorkKind = 'interactive',
  ): Promise<SimulationResponse> {
    const { response, run } = await this.compute(
      typeof caller === 'string' ? caller : caller.orgId,
      body,
      kind,
      typeof caller === 'string' ? SYSTEM : actorOf(caller),
    );
    await this.runs.record(run);
    return response;
  }

  /**
   * `simulate` for the HTTP route: the answer as its JSON text, serialised while the run's insert runs on the SQLite
   * driver's thread. The text is returned only once the run has committed, as `simulate` returns its answer.
   */
  async simulateToJson(caller: Principal, body: unknown): Promise<string> {
    const { response, run } = await this.compute(caller.orgId, body, 'interactive', actorOf(caller));
    return this.runs.recordWhile(run, () => JSON.stringify(response));
  }

  /**
   * Validates and computes one simulation without recording it: for a caller that records the run in its own
   * transaction (`recordRuns`), with what the result changes (a job's finish, a trigger's fire). Throws as `simulate`.
   * Reading a dataset for the run is audited (`datasets_read`, by `actor`) once the data has been read.
   */
  async compute(
    orgId: string,
    body: unknown,
    kind: EngineWorkKind = 'interactive',
    actor: AuditActor = SYSTEM,
  ): Promise<ComputedSimulation> {
    const { request, inputs } = this.parse(body);
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

  /** Records computed runs in the caller's transaction, in one insert: they exist iff that transaction commits. */
  recordRuns(tx: Transaction, runs: readonly SimulationRun[]): Promise<void> {
    return this.runs.insertAll(tx, runs);
  }

  /** A recorded run of the organization, or null. */
  findRun(orgId: string, runId: string): Promise<SimulationRun | null> {
    return this.runs.findById(orgId, runId);
  }

  /** One audit event per run that read datasets: which versions, and which columns for which variable. */
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

  /**
   * Reads and fits each input from data into the engine request, in place of its placeholder, and adds the rank
   * correlations estimated from the rows when asked (a pair the caller set keeps the caller's value). Answers the
   * inputs' provenance.
   */
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

/** Seeds drawn from the CSPRNG at a time: one call (and one buffer) for this many jobs or simulations. */
const SEEDS_PER_DRAW = 128;
const SEED_BITS = (1n << 53n) - 1n;
let seedBytes = Buffer.alloc(0);
let nextSeedAt = 0;

/** 53 random bits: exact as a JSON number in every client, so the echoed seed reproduces the run. */
function pickSeed(): bigint {
  if (nextSeedAt >= seedBytes.length) {
    seedBytes = randomBytes(8 * SEEDS_PER_DRAW);
    nextSeedAt = 0;
  }
  const seed = seedBytes.readBigUInt64BE(nextSeedAt) & SEED_BITS;
  nextSeedAt += 8;
  return seed;
}
