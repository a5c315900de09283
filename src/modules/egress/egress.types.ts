import type { Socket } from 'node:net';

/** Why a connection is made; recorded with every decision and used as a metric label. */
export type EgressPurpose = 'webhook' | 'connector' | 'object_store' | 'mail' | 'dataset_ingest' | 'other';

export interface EgressContext {
  readonly purpose: EgressPurpose;
  readonly orgId?: string;
}

export interface CheckedDestination {
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly family: 4 | 6;
  readonly servername?: string;
}

export class EgressBlockedError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly reason: string,
  ) {
    super(`Egress policy blocked ${host}:${port}: ${reason}`);
    this.name = 'EgressBlockedError';
  }

  get code(): string {
    return this.reason.split(':')[0];
  }
}

export class EgressUnresolvedError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly reason: string,
  ) {
    super(`Cannot resolve ${host}: ${reason}`);
    this.name = 'EgressUnresolvedError';
  }
}

export interface OpenSocketOptions {
  readonly tls?: boolean;
  readonly timeoutMs?: number;
}

export interface OneRequest {
  readonly method: 'POST' | 'PUT';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly signal?: AbortSignal;
}

export interface OneAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

// Every outbound connection goes through it; each attempt is recorded as one decision.
export interface EgressGuard {
  checkDestination(host: string, port: number, context: EgressContext): Promise<CheckedDestination>;
  /** fetch() through a dispatcher that checks and pins every address and re-checks each redirect hop. */
  fetch(url: string | URL, init: RequestInit, context: EgressContext): Promise<Response>;
  /** Without fetch's streams and response objects (a tenth of the CPU), for senders that need only the status. */
  send(url: string, request: OneRequest, context: EgressContext): Promise<OneAnswer>;
  connect(host: string, port: number, context: EgressContext): Promise<CheckedDestination>;
  openSocket(
    host: string,
    port: number,
    context: EgressContext,
    options?: OpenSocketOptions,
  ): Promise<Socket>;
}

export const EGRESS_GUARD = Symbol('EGRESS_GUARD');
