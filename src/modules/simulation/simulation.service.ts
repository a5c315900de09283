import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ENGINE_PORT, EnginePort, EngineWorkKind } from '../engine/engine.types';
import { Principal } from '../../common/auth/principal';
import type { Transaction } from '../../common/database';
import { assertFiniteResult } from './result-guard';
import { readPlainRequest } from './plain-request';
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

/** Runs simulations for an organization and records each run; the jobs module calls it too. */
/** A request whose correlations the engine would refuse is refused now (a job or trigger stores it to run later). */
function checked(request: SimulationRequest): SimulationRequest {
  assertValidCorrelations(request);
  return request;
}

@Injectable()
export class SimulationService {
  constructor(
    @Inject(ENGINE_PORT) private readonly engine: EnginePort,
    private readonly runs: RunsRepository,
  ) {}

  /**
   * The request as the engine takes it. A body not yet validated (the HTTP body, a job's stored request) is checked
   * with the DTO's rules, the common shape first without the DTO classes (plain-request.ts): throws AppError
   * validation_failed (422, every problem in `details`) for one the engine would refuse, and
   * correlation_matrix_invalid for rank correlations that are not a valid matrix.
   */
  validate(body: unknown): SimulationRequest {
    if (body instanceof SimulateRequest) return checked(toSimulationRequest(body));
    return readPlainRequest(body) ?? checked(toSimulationRequest(parseWire(SimulateRequest, body)));
  }

  /**
   * Validates and returns the body as it will run, JSON-safe, with the seed fixed (for callers that store a request
   * to run later: running it again gives the same numbers).
   */
  prepare(body: unknown): Record<string, unknown> {
    const request = this.validate(body);
    return toEngineRequest(request, request.seed ?? pickSeed());
  }

  /**
   * `prepare` for the common body shape only (plain-request.ts), without the DTO classes; undefined for anything
   * else, which the caller then validates with its own DTO so that problems are named from its body's root.
   */
  preparePlain(body: unknown): Record<string, unknown> | undefined {
    const request = readPlainRequest(body);
    return request && toEngineRequest(request, request.seed ?? pickSeed());
  }

  /** Validates and returns the body as it will run, JSON-safe, keeping the seed only when the caller chose one. */
  normalize(body: unknown): Record<string, unknown> {
    const request = this.validate(body);
    return toEngineRequest(request, request.seed);
  }

  /**
   * Validates, computes and records one simulation. Throws AppError: validation_failed, engine_busy,
   * engine_timeout, engine_unavailable, internal_error.
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
    );
    await this.runs.record(run);
    return response;
  }

  /**
   * `simulate` for the HTTP route: the answer as its JSON text, serialised while the run's insert runs on the SQLite
   * driver's thread. The text is returned only once the run has committed, as `simulate` returns its answer.
   */
  async simulateToJson(caller: Principal, body: unknown): Promise<string> {
    const { response, run } = await this.compute(caller.orgId, body);
    return this.runs.recordWhile(run, () => JSON.stringify(response));
  }

  /**
   * Validates and computes one simulation without recording it: for a caller that records the run in its own
   * transaction (`recordRuns`), with what the result changes (a job's finish, a trigger's fire). Throws as `simulate`.
   */
  async compute(
    orgId: string,
    body: unknown,
    kind: EngineWorkKind = 'interactive',
  ): Promise<ComputedSimulation> {
    const request = this.validate(body);
    const seed = request.seed ?? pickSeed();
    const engineRequest = toEngineRequest(request, seed);
    const computing = this.engine.simulate(engineRequest, { orgId, kind });
    // Done while the engine computes rather than after it (the worker is another process).
    const id = `run_${randomUUID().replaceAll('-', '')}`;
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
    };
    return { response: toSimulationResponse(run.id, mode, result, seedToJson(seed)), run };
  }

  /** Records computed runs in the caller's transaction, in one insert: they exist iff that transaction commits. */
  recordRuns(tx: Transaction, runs: readonly SimulationRun[]): Promise<void> {
    return this.runs.insertAll(tx, runs);
  }

  /** A recorded run of the organization, or null. */
  findRun(orgId: string, runId: string): Promise<SimulationRun | null> {
    return this.runs.findById(orgId, runId);
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
