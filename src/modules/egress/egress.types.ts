/** Why a connection is made; recorded with every decision and used as a metric label. */
export type EgressPurpose = 'webhook' | 'connector' | 'object_store' | 'mail' | 'dataset_ingest' | 'other';

export interface EgressContext {
  readonly purpose: EgressPurpose;
  readonly orgId?: string;
}

/** A destination that passed the policy, pinned to the address that was checked. */
export interface CheckedDestination {
  readonly host: string;
  readonly port: number;
  /** The resolved, checked IP address to connect to; the host stays the TLS servername. */
  readonly address: string;
  readonly family: 4 | 6;
}

/** Thrown (or reported) when the policy denies a destination; no connection was made. */
export class EgressBlockedError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly reason: string,
  ) {
    super(`Egress policy blocked ${host}:${port}: ${reason}`);
    this.name = 'EgressBlockedError';
  }
}

/**
 * The only way out of the appliance. Every outbound connection (webhooks, REST and database connectors, object
 * stores, mail) goes through it; each attempt is recorded as one decision.
 */
export interface EgressGuard {
  /** Resolves and checks a destination; throws EgressBlockedError when denied. */
  checkDestination(host: string, port: number, context: EgressContext): Promise<CheckedDestination>;
  /** fetch() through a dispatcher that checks and pins every address and re-checks each redirect hop. */
  fetch(url: string | URL, init: RequestInit, context: EgressContext): Promise<Response>;
  /** For database drivers: hand them `address` (not the name) after this check. */
  connect(host: string, port: number, context: EgressContext): Promise<CheckedDestination>;
}

export const EGRESS_GUARD = Symbol('EGRESS_GUARD');
