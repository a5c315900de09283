import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Registry, Counter } from 'prom-client';
import { openDatabase, StoreOrm } from '../../src/common/database';
import { registerEntities } from '../../src/common/database/entity-registry';
import { createLogger } from '../../src/common/logging';
import { EgressDecisionSchema } from '../../src/modules/egress/egress-decision.entity';
import { EgressDecisionRepository } from '../../src/modules/egress/egress-decision.repository';
import {
  EgressGuardService,
  EgressResolver,
  systemResolver,
} from '../../src/modules/egress/egress-guard.service';
import { EgressPolicy } from '../../src/modules/egress/egress-policy';
import { parseRules } from '../../src/modules/egress/egress-rules';
import { PinnedDestinations } from './pinned-destinations';

/** A loopback HTTP server that counts TCP connections and records requests. */
export interface Receiver {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  connections: number;
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

export async function startReceiver(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void = (_req, res) => res.end('ok'),
  host = '127.0.0.1',
): Promise<Receiver> {
  const server = createServer();
  const receiver = {
    server,
    port: 0,
    url: '',
    connections: 0,
    requests: [] as Receiver['requests'],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => receiver.connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      receiver.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen({ host, port: 0, ipv6Only: false }, () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** A resolver that answers from a table first (for names that must resolve to loopback in tests). */
export function tableResolver(table: Record<string, string[]>): EgressResolver {
  return (name) => (table[name] ? Promise.resolve(table[name]) : systemResolver(name));
}

export interface GuardHarness {
  readonly guard: EgressGuardService;
  readonly orm: StoreOrm;
  readonly decisions: EgressDecisionRepository;
  readonly counter: Counter<'purpose' | 'decision'>;
  /** What the guard allowed and pinned, from its recorded decisions. */
  readonly pinned: PinnedDestinations;
  close(): Promise<void>;
}

/** The real guard on a real, migrated SQLite file. */
export async function startGuard(
  dir: string,
  rules: string[],
  resolver?: EgressResolver,
  options: { ca?: string[] } = {},
): Promise<GuardHarness> {
  registerEntities([EgressDecisionSchema]);
  const orm = await openDatabase(join(dir, 'service.sqlite'));
  const pinned = new PinnedDestinations();
  const decisions = pinned.watch(new EgressDecisionRepository(orm.em));
  const counter = new Counter({
    name: 'egress_decisions_total',
    help: 'test',
    labelNames: ['purpose', 'decision'] as const,
    registers: [new Registry()],
  });
  const guard = new EgressGuardService({
    policy: new EgressPolicy(parseRules(rules)),
    sink: decisions,
    logger: createLogger('silent'),
    decisions: counter,
    resolver,
    ca: options.ca,
  });
  return {
    guard,
    orm,
    decisions,
    counter,
    pinned,
    async close() {
      await guard.close();
      await orm.close(true);
    },
  };
}
