/** What the rest of the daemon sees of the engine; unit tests substitute a fake behind ENGINE_PORT. */
export const ENGINE_MODES = ['pool', 'subprocess_fallback', 'unavailable'] as const;
export type EngineMode = (typeof ENGINE_MODES)[number];
export type ServingMode = Exclude<EngineMode, 'unavailable'>;

/** A validated `/v1/simulate` body, seed filled in (the wire format of DESIGN.md §5). */
export type EngineRequest = Readonly<Record<string, unknown>>;

export interface ActionStatistics {
  readonly name: string;
  readonly mean: number;
  readonly std_dev: number;
  readonly std_error: number;
  readonly p5: number;
  readonly p50: number;
  readonly p95: number;
  readonly min: number;
  readonly max: number;
  readonly prob_positive: number;
  readonly prob_best: number;
  readonly expected_loss: number;
  readonly prob_target?: number;
}

export interface Sensitivity {
  readonly variable: string;
  readonly correlation: number;
  readonly swing?: number;
}

export interface EngineResult {
  readonly engine_version: string;
  readonly runs: number;
  readonly seed: number | string;
  readonly objective: string;
  readonly recommended_action: string;
  readonly expected_value: number;
  readonly confidence: number;
  readonly evpi: number;
  readonly actions: readonly ActionStatistics[];
  readonly sensitivity: readonly Sensitivity[];
  /** With scenario.correlations: each target, the value used when adjusted, and the Spearman of the draws. */
  readonly correlations?: readonly CorrelationOutcome[];
  readonly correlations_adjusted?: boolean;
  readonly compute_ms: number;
}

export interface CorrelationOutcome {
  readonly a: string;
  readonly b: string;
  readonly target: number;
  readonly adjusted?: number;
  readonly achieved: number;
}

export interface EngineOutcome {
  readonly result: EngineResult;
  readonly mode: ServingMode;
}

export interface EngineStatus {
  readonly mode: EngineMode;
  readonly version: string | null;
  readonly lastHealthCheck: string | null;
  readonly pool: {
    readonly size: number;
    readonly busy: number;
    readonly queued: number;
    readonly restarts: number;
  };
}

/** Someone waiting for an answer (an API or MCP call), or work the appliance runs on its own (triggers, jobs). */
export type EngineWorkKind = 'interactive' | 'scheduled';

/** Whose request it is, for the pool's fair share: organizations in turn, interactive before scheduled. */
export interface EngineTicket {
  readonly orgId: string;
  readonly kind: EngineWorkKind;
}

export const INTERACTIVE_TICKET: EngineTicket = { orgId: '', kind: 'interactive' };

export interface EnginePort {
  /** Throws AppError: validation_failed, engine_busy, engine_timeout, engine_unavailable, internal_error. */
  simulate(request: EngineRequest, ticket?: EngineTicket): Promise<EngineOutcome>;
  status(): EngineStatus;
}

export const ENGINE_PORT = Symbol('ENGINE_PORT');

export type EngineReply =
  | { readonly type: 'result'; readonly result: EngineResult }
  | { readonly type: 'error'; readonly error: EngineErrorBody };

export interface EngineErrorBody {
  readonly code: string;
  readonly message: string;
  readonly details?: readonly { readonly field: string; readonly problem: string }[];
}
