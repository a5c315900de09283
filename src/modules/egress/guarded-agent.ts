import type { Agent } from 'undici';
import { InvalidHostError, normaliseHost } from './egress-host';
import { CheckedDestination, EgressBlockedError } from './egress.types';

/** An undici Agent pinned to one checked address (no DNS lookup); any other origin is refused. */
export async function pinnedAgent(
  destination: CheckedDestination,
  tls: { timeout: number; ca?: string[] },
): Promise<Agent> {
  // Loaded on first use: undici takes a noticeable share of start-up, and many appliances never send anything.
  const { Agent, buildConnector } = await import('undici');
  const base = buildConnector(tls.ca ? { timeout: tls.timeout, ca: tls.ca } : { timeout: tls.timeout });
  const servername = destination.servername;
  return new Agent({
    connect: (options, callback) => {
      let asked: string;
      try {
        asked = normaliseHost(options.hostname).text;
      } catch (error) {
        if (!(error instanceof InvalidHostError)) throw error;
        asked = options.hostname;
      }
      const askedPort = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      if (asked !== destination.host || askedPort !== destination.port) {
        callback(
          new EgressBlockedError(asked, askedPort, 'pin_mismatch: the dispatcher is pinned to another host'),
          null,
        );
        return;
      }
      base({ ...options, hostname: destination.address, servername }, callback);
    },
  });
}
