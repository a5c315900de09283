import { Agent as HttpAgent, AgentOptions } from 'node:http';
import { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import { isIP } from 'node:net';
import { Duplex } from 'node:stream';
import { EgressContext, EgressGuard } from '../egress/egress.types';

type ConnectOptions = {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  servername?: string;
} & Record<string, unknown>;
type OnCreate = (error: Error | null, socket?: Duplex) => void;
type CreateConnection = (options: ConnectOptions) => Duplex | undefined;
type AsyncCreateConnection = (options: ConnectOptions, onCreate: OnCreate) => Duplex | undefined;

export interface GuardedAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
  readonly refusal: Error | undefined;
}

/**
 * Node http(s) agents for SDKs that take one (AWS SDK, ClickHouse client): every new socket first asks the egress
 * guard about host:port, then connects to the checked address; TLS keeps the host name as servername. IP literals
 * are checked too (a lookup hook alone would skip them).
 */
export function guardedAgents(
  guard: EgressGuard,
  context: EgressContext,
  options: AgentOptions & Pick<HttpsAgentOptions, 'ca'> = {},
): GuardedAgents {
  let refusal: Error | undefined;
  const wrap = (agent: HttpAgent, secure: boolean): void => {
    const original = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(
      agent,
    );
    (agent as unknown as { createConnection: AsyncCreateConnection }).createConnection = (
      connectOptions,
      onCreate,
    ) => {
      const host = String(connectOptions.hostname ?? connectOptions.host ?? 'localhost').replace(
        /^\[|\]$/g,
        '',
      );
      const port = Number(connectOptions.port ?? (secure ? 443 : 80));
      guard.checkDestination(host, port, context).then(
        (destination) => {
          try {
            const socket = original({
              ...connectOptions,
              host: destination.address,
              hostname: destination.address,
              ...(secure ? { servername: connectOptions.servername ?? (isIP(host) ? undefined : host) } : {}),
            });
            if (socket) onCreate(null, socket);
            else onCreate(new Error('the agent created no socket'));
          } catch (error) {
            onCreate(error as Error);
          }
        },
        (error: Error) => {
          refusal = error;
          onCreate(error);
        },
      );
      return undefined;
    };
  };
  const http = new HttpAgent({ keepAlive: false, ...options });
  const https = new HttpsAgent({ keepAlive: false, ...options });
  wrap(http, false);
  wrap(https, true);
  return {
    http,
    https,
    get refusal() {
      return refusal;
    },
  };
}
