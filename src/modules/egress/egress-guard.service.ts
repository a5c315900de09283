import { lookup } from 'node:dns/promises';
import { connect as netConnect, Socket } from 'node:net';
import { rootCertificates, connect as tlsConnect } from 'node:tls';
import type { Counter } from 'prom-client';
import type { Agent } from 'undici';
import type { AppLogger } from '../../common/logging';
import { InvalidHostError, MAX_HOST_LENGTH, NormalisedHost, normaliseHost } from './egress-host';
import type { NewDecision } from './egress-decision.repository';
import { EgressPolicy, Verdict } from './egress-policy';
import {
  CheckedDestination,
  EgressBlockedError,
  EgressContext,
  EgressGuard,
  EgressUnresolvedError,
  OneAnswer,
  OneRequest,
  OpenSocketOptions,
} from './egress.types';
import { pinnedAgent } from './guarded-agent';
import { formatIp, IpAddress, parseIp } from './ip-address';

export type EgressResolver = (name: string) => Promise<string[]>;

export const systemResolver: EgressResolver = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

export interface DecisionSink {
  append(decision: NewDecision): Promise<unknown>;
}

export interface EgressGuardOptions {
  readonly policy: EgressPolicy;
  readonly sink: DecisionSink;
  readonly logger: AppLogger;
  readonly decisions: Counter<'purpose' | 'decision'>;
  readonly resolver?: EgressResolver;
  readonly connectTimeoutMs?: number;
  readonly ca?: readonly string[];
  readonly now?: () => Date;
}

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const MAX_PINNED_AGENTS = 64;
/** How much of an answer's body `send` reads (and discards) before it closes the connection instead. */
const MAX_DISCARDED_BODY_BYTES = 64 * 1024;

/** The egress guard: checks every name and address, records one hash-chained decision, pins the connection. */
export class EgressGuardService implements EgressGuard {
  private readonly resolver: EgressResolver;
  private readonly connectTimeoutMs: number;
  private readonly now: () => Date;
  private readonly agents = new Map<string, Agent>();
  private readonly ca: string[] | undefined;

  constructor(private readonly options: EgressGuardOptions) {
    this.resolver = options.resolver ?? systemResolver;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.now = options.now ?? ((): Date => new Date());
    this.ca = options.ca && options.ca.length > 0 ? [...rootCertificates, ...options.ca] : undefined;
  }

  get policy(): EgressPolicy {
    return this.options.policy;
  }

  connect(host: string, port: number, context: EgressContext): Promise<CheckedDestination> {
    return this.checkDestination(host, port, context);
  }

  async checkDestination(host: string, port: number, context: EgressContext): Promise<CheckedDestination> {
    let target: NormalisedHost;
    try {
      target = normaliseHost(host);
    } catch (error) {
      if (!(error instanceof InvalidHostError)) throw error;
      return this.refuse(context, truncate(host), port, null, `invalid_host: ${error.message}`);
    }
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      return this.refuse(context, target.text, port, null, `invalid_port: ${port} is not a port number`);
    }
    let addresses: IpAddress[];
    if (target.kind === 'name') {
      const byName = this.options.policy.judgeName(target.name, port);
      if (!byName.allowed) return this.refuse(context, target.text, port, null, byName.reason);
      addresses = await this.resolve(target.name, port, context);
    } else {
      addresses = [target.ip];
    }
    const verdict = this.options.policy.judge(target, port, addresses);
    const address = verdict.address ? formatIp(verdict.address) : null;
    if (!verdict.allowed) return this.refuse(context, target.text, port, address, verdict.reason);
    const chosen = verdict.address as IpAddress;
    await this.record(context, target.text, port, address, verdict);
    return {
      host: target.text,
      port,
      address: formatIp(chosen),
      family: chosen.family,
      servername: target.kind === 'name' ? target.name : undefined,
    };
  }

  async fetch(url: string | URL, init: RequestInit, context: EgressContext): Promise<Response> {
    let current = await this.parseUrl(url, undefined, context);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers = new Headers(init.headers);
    const redirectMode = init.redirect ?? 'follow';
    for (let hop = 0; ; hop++) {
      const destination = await this.checkUrl(current, context);
      const requestInit = {
        ...init,
        method,
        body,
        headers,
        redirect: 'manual',
        dispatcher: await this.agentFor(destination),
      };
      // Node's fetch (undici 6 inside) drives an undici 7 Agent through the dispatcher interface both share.
      const response = await fetch(current, requestInit as unknown as RequestInit);
      const location = response.headers.get('location');
      if (redirectMode === 'manual' || !REDIRECT_STATUSES.has(response.status) || location === null)
        return response;
      await response.body?.cancel();
      if (redirectMode === 'error')
        throw new TypeError(`redirected to ${location} while redirect is "error"`);
      if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
      const next = await this.parseUrl(location, current, context);
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      } else if (body instanceof ReadableStream) {
        throw new TypeError('cannot replay a streamed body across a redirect');
      }
      if (next.origin !== current.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      current = next;
    }
  }

  async send(url: string, request: OneRequest, context: EgressContext): Promise<OneAnswer> {
    const target = await this.parseUrl(url, undefined, context);
    const destination = await this.checkUrl(target, context);
    const agent = await this.agentFor(destination);
    const answer = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    // Read to the end, so the connection can carry the next request.
    await answer.body.dump({ limit: MAX_DISCARDED_BODY_BYTES, signal: request.signal });
    return { status: answer.statusCode, headers: answer.headers };
  }

  async openSocket(
    host: string,
    port: number,
    context: EgressContext,
    options: OpenSocketOptions = {},
  ): Promise<Socket> {
    const destination = await this.checkDestination(host, port, context);
    const timeout = options.timeoutMs ?? this.connectTimeoutMs;
    return new Promise<Socket>((resolve, reject) => {
      const socket = options.tls
        ? tlsConnect({
            host: destination.address,
            port,
            servername: destination.servername,
            timeout,
            ca: this.ca,
          })
        : netConnect({ host: destination.address, port, timeout });
      const ready = options.tls ? 'secureConnect' : 'connect';
      const fail = (error: Error): void => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', fail);
      socket.once('timeout', () => fail(new Error(`connecting to ${host}:${port} timed out`)));
      socket.once(ready, () => {
        socket.off('error', fail);
        socket.setTimeout(0);
        resolve(socket);
      });
    });
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.destroy()));
  }

  private async parseUrl(url: string | URL, base: URL | undefined, context: EgressContext): Promise<URL> {
    try {
      return new URL(url, base);
    } catch {
      return this.refuse(context, truncate(String(url)), 0, null, 'invalid_url: the URL cannot be parsed');
    }
  }

  private async checkUrl(url: URL, context: EgressContext): Promise<CheckedDestination> {
    const defaultPort = url.protocol === 'https:' ? 443 : 80;
    const port = url.port === '' ? defaultPort : Number(url.port);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return this.refuse(
        context,
        truncate(url.hostname || url.href),
        port,
        null,
        `scheme_not_allowed: ${url.protocol.replace(/:$/, '')} URLs are not allowed (only http and https)`,
      );
    }
    if (url.username !== '' || url.password !== '') {
      return this.refuse(
        context,
        truncate(url.hostname),
        port,
        null,
        'userinfo_not_allowed: URLs with user names or passwords are not allowed',
      );
    }
    return this.checkDestination(url.hostname, port, context);
  }

  private async resolve(name: string, port: number, context: EgressContext): Promise<IpAddress[]> {
    let answers: string[];
    try {
      answers = await this.resolver(name);
    } catch (error) {
      const reason = `resolve_failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      await this.record(context, name, port, null, { allowed: false, reason });
      throw new EgressUnresolvedError(name, port, reason);
    }
    const addresses: IpAddress[] = [];
    for (const answer of answers) {
      const ip = parseIp(answer);
      if (!ip)
        return this.refuse(
          context,
          name,
          port,
          truncate(answer),
          `invalid_address: the name resolved to "${answer}"`,
        );
      addresses.push(ip);
    }
    return addresses;
  }

  private async agentFor(destination: CheckedDestination): Promise<Agent> {
    const key = `${destination.host}|${destination.port}|${destination.address}`;
    let agent = this.agents.get(key);
    if (agent) return agent;
    const created = await pinnedAgent(destination, { timeout: this.connectTimeoutMs, ca: this.ca });
    agent = this.agents.get(key);
    if (agent) {
      void created.close().catch(() => undefined);
      return agent;
    }
    agent = created;
    this.agents.set(key, agent);
    if (this.agents.size > MAX_PINNED_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    return agent;
  }

  private async refuse(
    context: EgressContext,
    host: string,
    port: number,
    address: string | null,
    reason: string,
  ): Promise<never> {
    await this.record(context, host, port, address, { allowed: false, reason });
    throw new EgressBlockedError(host, port, reason);
  }

  private async record(
    context: EgressContext,
    host: string,
    port: number,
    address: string | null,
    verdict: Verdict,
  ): Promise<void> {
    const decision = verdict.allowed ? 'allowed' : 'denied';
    this.options.decisions.inc({ purpose: context.purpose, decision });
    const fields = {
      purpose: context.purpose,
      org_id: context.orgId,
      host,
      port,
      address,
      reason: verdict.reason,
    };
    if (verdict.allowed) {
      this.options.logger.debug({ event: 'egress_allowed', ...fields }, 'egress allowed');
    } else {
      this.options.logger.warn({ event: 'egress_denied', ...fields }, 'egress denied by policy');
    }
    await this.options.sink.append({
      decidedAt: this.now().toISOString(),
      purpose: context.purpose,
      orgId: context.orgId ?? null,
      host,
      port: Number.isInteger(port) ? port : 0,
      address,
      allowed: verdict.allowed,
      reason: verdict.reason,
    });
  }
}

function truncate(text: string): string {
  return text.length > MAX_HOST_LENGTH ? `${text.slice(0, MAX_HOST_LENGTH)}…` : text;
}
