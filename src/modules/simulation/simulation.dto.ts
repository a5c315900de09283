import { EngineMode, EngineResult } from '../engine/engine.types';

/** The `/v1/simulate` answer: the engine's result (DESIGN.md §5) with the run id and the path that computed it. */
export type SimulationResponse = { readonly run_id: string; readonly engine_mode: EngineMode } & EngineResult;

export function toSimulationResponse(
  runId: string,
  mode: EngineMode,
  result: EngineResult,
  seed: number | string,
): SimulationResponse {
  return { run_id: runId, engine_mode: mode, ...result, seed };
}
