import { lookup } from 'node:dns/promises';
import { connect as netConnect, Socket } from 'node:net';
import {
  CheckedDestination,
  EgressBlockedError,
  EgressContext,
  EgressGuard,
  OneAnswer,
  OneRequest,
} from '../../src/modules/egress/egress.types';

export interface Attempt {
  readonly host: string;
  readonly port: number;
  readonly allowed: boolean;
  readonly purpose: string;
}

/**
 * A small allow-list guard for connector tests: `host:port` or `host` rules, every attempt recorded, redirects
 * re-checked. The daemon itself uses the real egress module; this stands in where services are built directly.
 */
export class TestEgressGuard implements EgressGuard {
  readonly attempts: Attempt[] = [];

  constructor(private readonly rules: readonly string[] = []) {}

  private allows(host: string, port: number): boolean {
    return this.rules.some((rule) => rule === host || rule === `${host}:${port}`);
  }

  async checkDestination(host: string, port: number, context: EgressContext): Promise<CheckedDestination> {
    const bare = host.replace(/^\[|\]$/g, '');
    const allowed = this.allows(bare, port);
    this.attempts.push({ host: bare, port, allowed, purpose: context.purpose });
    if (!allowed) throw new EgressBlockedError(bare, port, 'no_rule: no egress rule allows this destination');
    const resolved = await lookup(bare);
    return { host: bare, port, address: resolved.address, family: resolved.family === 6 ? 6 : 4 };
  }

  connect(host: string, port: number, context: EgressContext): Promise<CheckedDestination> {
    return this.checkDestination(host, port, context);
  }

  async openSocket(host: string, port: number, context: EgressContext): Promise<Socket> {
    const destination = await this.checkDestination(host, port, context);
    return netConnect({ host: destination.address, port });
  }

  async fetch(url: string | URL, init: RequestInit, context: EgressContext): Promise<Response> {
    let target = new URL(url);
    for (let hop = 0; hop < 5; hop += 1) {
      const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
      await this.checkDestination(target.hostname, port, context);
      const response = await fetch(target, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      target = new URL(location, target);
    }
    throw new Error('too many redirects');
  }

  async send(url: string, request: OneRequest, context: EgressContext): Promise<OneAnswer> {
    const target = new URL(url);
    await this.checkDestination(
      target.hostname,
      Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
      context,
    );
    const response = await fetch(target, { ...request, redirect: 'manual' });
    await response.body?.cancel();
    return { status: response.status, headers: Object.fromEntries(response.headers) };
  }
}
