import { randomBytes } from 'node:crypto';
import { parseWire } from '../../common/validation';
import { assertValidCorrelations } from './correlation-matrix';
import { DataInputs, dataInputsOf, NO_DATA_INPUTS, withDataInputs } from './data-inputs';
import { readPlainRequest } from './plain-request';
import { SimulateRequest, toSimulationRequest } from './simulation.dto';
import { SimulationRequest, toEngineRequest } from './simulation-request';

/** A validated `/v1/simulate` body: the request the engine takes, and its inputs from data, resolved when it runs. */
export interface ParsedSimulation {
  readonly request: SimulationRequest;
  readonly inputs: DataInputs;
}

/**
 * A body checked with the DTO's rules (the HTTP body, a job's stored request; or one a DTO already validated), the
 * common shape first without the DTO classes (plain-request.ts). Throws AppError validation_failed (422, every
 * problem in `details`) for one the engine would refuse, and correlation_matrix_invalid for rank correlations that
 * are not a valid matrix (refused now, as a job or trigger stores the request to run later).
 */
export function parseSimulation(body: unknown): ParsedSimulation {
  const dto = body instanceof SimulateRequest ? body : undefined;
  const plain = dto ? undefined : readPlainRequest(body);
  if (plain) return { request: plain, inputs: NO_DATA_INPUTS };
  const validated = dto ?? parseWire(SimulateRequest, body);
  const request = toSimulationRequest(validated);
  assertValidCorrelations(request);
  return { request, inputs: dataInputsOf(validated.scenario) };
}

/**
 * `parseSimulation` for the common body shape only, without the DTO classes; undefined for anything else, which the
 * caller then validates with its own DTO so that problems are named from its body's root.
 */
export function parsePlainSimulation(body: unknown): ParsedSimulation | undefined {
  const request = readPlainRequest(body);
  return request && { request, inputs: NO_DATA_INPUTS };
}

/**
 * The request as it will run, JSON-safe, for a caller that stores it to run later: with `fixSeed` a seed is picked
 * when the caller gave none, so running it again gives the same numbers; inputs from data stay as given (a dataset
 * id names one immutable version, so they resolve the same way whenever it runs).
 */
export function storedSimulation(parsed: ParsedSimulation, fixSeed: boolean): Record<string, unknown> {
  const seed = parsed.request.seed ?? (fixSeed ? pickSeed() : undefined);
  return withDataInputs(toEngineRequest(parsed.request, seed), parsed.inputs);
}

/** Seeds drawn from the CSPRNG at a time: one call (and one buffer) for this many jobs or simulations. */
const SEEDS_PER_DRAW = 128;
const SEED_BITS = (1n << 53n) - 1n;
let seedBytes = Buffer.alloc(0);
let nextSeedAt = 0;

/** 53 random bits: exact as a JSON number in every client, so the echoed seed reproduces the run. */
export function pickSeed(): bigint {
  if (nextSeedAt >= seedBytes.length) {
    seedBytes = randomBytes(8 * SEEDS_PER_DRAW);
    nextSeedAt = 0;
  }
  const seed = seedBytes.readBigUInt64BE(nextSeedAt) & SEED_BITS;
  nextSeedAt += 8;
  return seed;
}
