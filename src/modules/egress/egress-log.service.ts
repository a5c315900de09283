import { Injectable } from '@nestjs/common';
import {
  ChainState,
  DestinationSummary,
  EgressDecisionRepository,
  NodeCount,
  TimeBucket,
} from './egress-decision.repository';
import { isPublicAddress } from './egress-policy';
import { parseIp } from './ip-address';

export type { ChainState, DestinationSummary, NodeCount, TimeBucket };

/** What the egress decision log tells other modules (the privacy report): destinations reached and chain integrity. */
@Injectable()
export class EgressLogService {
  constructor(private readonly decisions: EgressDecisionRepository) {}

  /** Allowed and denied attempts per destination between two ISO instants. */
  destinations(start: string, end: string): Promise<DestinationSummary[]> {
    return this.decisions.summarise(start, end);
  }

  /** Allowed and denied attempts in `buckets` equal slices of the window. */
  countOverTime(start: string, end: string, buckets: number): Promise<TimeBucket[]> {
    return this.decisions.countOverTime(start, end, buckets);
  }

  /** Allowed and denied attempts per node (replica host) that recorded them, between two ISO instants. */
  countByNode(start: string, end: string): Promise<NodeCount[]> {
    return this.decisions.countByNode(start, end);
  }

  verifyChain(): Promise<ChainState> {
    return this.decisions.verifyChain();
  }

  /** The addresses of a destination that lie on the public internet. */
  publicAddressesOf(destination: DestinationSummary): string[] {
    return destination.addresses.filter((address) => {
      const ip = parseIp(address);
      return ip !== undefined && isPublicAddress(ip);
    });
  }
}
