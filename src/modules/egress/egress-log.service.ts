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

@Injectable()
export class EgressLogService {
  constructor(private readonly decisions: EgressDecisionRepository) {}

  destinations(start: string, end: string): Promise<DestinationSummary[]> {
    return this.decisions.summarise(start, end);
  }

  countOverTime(start: string, end: string, buckets: number): Promise<TimeBucket[]> {
    return this.decisions.countOverTime(start, end, buckets);
  }

  countByNode(start: string, end: string): Promise<NodeCount[]> {
    return this.decisions.countByNode(start, end);
  }

  verifyChain(): Promise<ChainState> {
    return this.decisions.verifyChain();
  }

  publicAddressesOf(destination: DestinationSummary): string[] {
    return destination.addresses.filter((address) => {
      const ip = parseIp(address);
      return ip !== undefined && isPublicAddress(ip);
    });
  }
}
