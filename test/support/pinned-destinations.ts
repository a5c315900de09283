import { formatIp, parseIp } from '../../src/modules/egress/ip-address';
import type { DecisionSink } from '../../src/modules/egress/egress-guard.service';
import type { NewDecision } from '../../src/modules/egress/egress-decision.repository';

/**
 * The destinations a guard allowed, read from the decisions it records: an allowed decision names the checked
 * address, which is the one the guard's connection is pinned to. Noted synchronously, before the record is written,
 * so a socket opened right after the check already finds its pin.
 */
export class PinnedDestinations {
  private readonly pins = new Set<string>();

  /** Wraps a sink (the decision repository of a guard or a running app) so its allowed decisions are noted. */
  watch<S extends DecisionSink>(sink: S): S {
    const append = sink.append.bind(sink);
    sink.append = (decision: NewDecision) => {
      if (decision.allowed && decision.address !== null)
        this.pins.add(pinKey(decision.address, decision.port));
      return append(decision);
    };
    return sink;
  }

  /** Whether an allowed decision named this address and port (an IPv4-mapped socket address counts as IPv4). */
  has(address: string, port: number): boolean {
    const ip = parseIp(address.replace(/^::ffff:(?=\d+\.)/, ''));
    return ip !== undefined && this.pins.has(pinKey(formatIp(ip), port));
  }
}

function pinKey(address: string, port: number): string {
  return `${address}|${port}`;
}
