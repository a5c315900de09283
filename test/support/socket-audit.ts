import dns from 'node:dns';
import { isIP, Server, Socket } from 'node:net';

export interface SocketAttempt {
  readonly via: 'connect' | 'lookup';
  readonly host: string;
  readonly port: number;
  readonly allowed: boolean;
}

type Connect = (...args: unknown[]) => Socket;
type Listen = (...args: unknown[]) => Server;
type Lookup = (...args: unknown[]) => void;

/**
 * A process-wide spy on outbound TCP: every `net.Socket#connect` (which `net.connect`, `tls.connect`, `http`,
 * undici and the database drivers all end in) and every callback `dns.lookup` of a name. A connection the predicate
 * does not allow is recorded and refused before it leaves the machine, so a leaking SDK fails the test without
 * reaching the address it was after. Connections to servers that start listening while the audit runs (the
 * drivers' own loopback proxies) are internal; what those proxies open is audited like anything else.
 */
export class SocketAudit {
  readonly attempts: SocketAttempt[] = [];
  private readonly internalPorts = new Set<number>();
  private readonly redirects = new Map<string, { host: string; port: number }>();
  private restore: (() => void) | undefined;

  constructor(private readonly isAllowed: (address: string, port: number) => boolean) {}

  start(): void {
    const connect = Socket.prototype.connect as unknown as Connect;
    const listen = Server.prototype.listen as unknown as Listen;
    const lookup = dns.lookup as unknown as Lookup;
    const record = (attempt: SocketAttempt): void => void this.attempts.push(attempt);
    const isAllowed = (host: string, port: number): boolean =>
      isIP(host) !== 0 && (this.isAllowed(host, port) || (isLoopback(host) && this.internalPorts.has(port)));
    const redirectOf = (host: string, port: number): { host: string; port: number } | undefined =>
      this.redirects.get(`${host}|${port}`);
    const internalPorts = this.internalPorts;
    (Socket.prototype as unknown as { connect: Connect }).connect = function (
      this: Socket,
      ...args: unknown[]
    ): Socket {
      const target = targetOf(args);
      if (!target) return connect.apply(this, args);
      const allowed = isAllowed(target.host, target.port);
      record({ via: 'connect', ...target, allowed });
      if (allowed) {
        const to = redirectOf(target.host, target.port);
        if (to) retarget(args, to);
        return connect.apply(this, args);
      }
      process.nextTick(() =>
        this.destroy(
          Object.assign(new Error(`socket audit refused ${target.host}:${target.port}`), {
            code: 'ECONNREFUSED',
          }),
        ),
      );
      return this;
    };
    (Server.prototype as unknown as { listen: Listen }).listen = function (
      this: Server,
      ...args: unknown[]
    ): Server {
      this.once('listening', () => {
        const address = this.address();
        if (address && typeof address === 'object') internalPorts.add(address.port);
      });
      return listen.apply(this, args);
    };
    (dns as unknown as { lookup: Lookup }).lookup = (...args: unknown[]): void => {
      const name = String(args[0]);
      if (isIP(name) === 0) record({ via: 'lookup', host: name, port: 0, allowed: false });
      lookup(...args);
    };
    this.restore = () => {
      (Socket.prototype as unknown as { connect: Connect }).connect = connect;
      (Server.prototype as unknown as { listen: Listen }).listen = listen;
      (dns as unknown as { lookup: Lookup }).lookup = lookup;
    };
  }

  /**
   * Sends allowed connections to `host:port` to a stand-in instead (an address no test can own, such as the
   * instance-metadata one); the guard still decides about the original address.
   */
  redirect(host: string, port: number, toHost: string, toPort: number): void {
    this.redirects.set(`${host}|${port}`, { host: toHost, port: toPort });
  }

  stop(): void {
    this.restore?.();
    this.restore = undefined;
  }

  /** `host:port` of every connection or lookup the predicate did not allow, in order. */
  violations(): string[] {
    return this.attempts.filter((a) => !a.allowed).map((a) => `${a.via} ${a.host}:${a.port}`);
  }

  /** Outbound connections that went out (internal proxy hops excluded). */
  allowedConnections(): SocketAttempt[] {
    return this.attempts.filter(
      (a) => a.via === 'connect' && a.allowed && !(isLoopback(a.host) && this.internalPorts.has(a.port)),
    );
  }
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === '::ffff:127.0.0.1';
}

function retarget(args: unknown[], to: { host: string; port: number }): void {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first !== null && typeof first === 'object') {
    Object.assign(first, { host: to.host, port: to.port });
    return;
  }
  args[0] = to.port;
  args[1] = to.host;
}

/** The TCP destination of a connect() call, or undefined for a Unix socket or pipe. */
function targetOf(args: unknown[]): { host: string; port: number } | undefined {
  let first = args[0];
  // net.connect() hands Socket#connect its already-normalised [options, callback] pair.
  if (Array.isArray(first)) first = first[0];
  if (first !== null && typeof first === 'object') {
    const options = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof options.path === 'string') return undefined;
    const host = typeof options.host === 'string' ? options.host : 'localhost';
    return { host: host.replace(/^\[|\]$/g, ''), port: Number(options.port) };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first)))
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(first) };
  return undefined;
}
