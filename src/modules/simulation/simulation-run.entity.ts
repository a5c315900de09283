import { EntitySchema } from '@mikro-orm/core';

/** One computed simulation: enough to cite it (`run_id`) and to reproduce it (request hash, seed, engine version). */
export interface SimulationRun {
  id: string;
  orgId: string;
  /** SHA-256 of the engine request with its seed, so equal hashes under one engine version give equal numbers. */
  requestHash: string;
  engineVersion: string;
  engineMode: string;
  runs: number;
  /** Decimal text: a seed is an unsigned 64-bit integer, beyond SQLite's signed integers. */
  seed: string;
  objective: string;
  recommendedAction: string;
  expectedValue: number;
  confidence: number;
  computeMs: number;
  createdAt: string;
  /** JSON of the inputs read from datasets, with their provenance (`inputs` of the answer); null without any. */
  inputs?: string | null;
}

export const SimulationRunSchema = new EntitySchema<SimulationRun>({
  name: 'SimulationRun',
  tableName: 'simulation_runs',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    requestHash: { type: 'string', fieldName: 'request_hash' },
    engineVersion: { type: 'string', fieldName: 'engine_version' },
    engineMode: { type: 'string', fieldName: 'engine_mode' },
    runs: { type: 'integer' },
    seed: { type: 'string' },
    objective: { type: 'string' },
    recommendedAction: { type: 'string', fieldName: 'recommended_action' },
    expectedValue: { type: 'double', fieldName: 'expected_value' },
    confidence: { type: 'double' },
    computeMs: { type: 'double', fieldName: 'compute_ms' },
    createdAt: { type: 'string', fieldName: 'created_at' },
    inputs: { type: 'text', nullable: true },
  },
});
