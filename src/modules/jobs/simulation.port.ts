/** What jobs need of the simulation module: the same validation as /v1/simulate, and a run. */
export interface SimulationPort {
  /** Validates a simulate body (throws AppError 422 like /v1/simulate) and returns it as it will run. */
  prepare(body: unknown): Record<string, unknown>;
  /** Runs on the engine and records the run; the result carries `run_id` and `engine_mode`. */
  run(orgId: string, request: Record<string, unknown>): Promise<SimulationOutcome>;
}

export interface SimulationOutcome {
  readonly run_id: string;
  readonly [field: string]: unknown;
}

export const SIMULATION_PORT = Symbol('SIMULATION_PORT');
