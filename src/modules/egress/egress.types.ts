import type { Socket } from 'node:net';

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
  /** The TLS servername (SNI and certificate name) to use: the host name, or undefined for an IP literal. */
  readonly servername?: string;
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

  /** The stable first part of the reason (`loopback_address`, `no_rule`, `scheme_not_allowed`...). */
  get code(): string {
    return this.reason.split(':')[0];
  }
}

/** The policy would allow the name, but it does not resolve; no connection was made. */
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
  /** Wrap the connection in TLS, verifying the certificate against the host name. */
  readonly tls?: boolean;
  readonly timeoutMs?: number;
}

/** One request `send` makes: no redirects are followed, and the answer's body is read and discarded. */
export interface OneRequest {
  readonly method: 'POST' | 'PUT';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the request, and with it the wait for the answer. */
  readonly signal?: AbortSignal;
}

/** The answer to a `send`: its status and its headers (names in lower case). */
export interface OneAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
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
  /**
   * One request to one checked URL, on the same pinned connections as `fetch`, without fetch's streams and response
   * objects (a tenth of the CPU): for senders that need only the answer's status, such as webhooks.
   */
  send(url: string, request: OneRequest, context: EgressContext): Promise<OneAnswer>;
  /** For database drivers: hand them `address` (not the name) after this check. */
  connect(host: string, port: number, context: EgressContext): Promise<CheckedDestination>;
  /** For clients that accept a ready socket (SMTP, some drivers): checks, then connects to the checked address. */
  openSocket(
    host: string,
    port: number,
    context: EgressContext,
    options?: OpenSocketOptions,
  ): Promise<Socket>;
}

export const EGRESS_GUARD = Symbol('EGRESS_GUARD');
