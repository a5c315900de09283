import { EntitySchema } from '@mikro-orm/core';

/** One decision of the egress guard; rows are append-only and hash-chained (see EgressDecisionRepository). */
export interface EgressDecision {
  seq: number;
  decidedAt: string;
  purpose: string;
  orgId: string | null;
  host: string;
  port: number;
  address: string | null;
  allowed: boolean;
  reason: string;
  prevHash: string;
  hash: string;
  /** The host name of the node that recorded it; null for rows recorded before nodes were (outside the hash). */
  node?: string | null;
}

export const EgressDecisionSchema = new EntitySchema<EgressDecision>({
  name: 'EgressDecision',
  tableName: 'egress_decisions',
  properties: {
    seq: { type: 'integer', primary: true, autoincrement: false },
    decidedAt: { type: 'string', fieldName: 'decided_at' },
    purpose: { type: 'string' },
    orgId: { type: 'string', fieldName: 'org_id', nullable: true },
    host: { type: 'string' },
    port: { type: 'integer' },
    address: { type: 'string', nullable: true },
    allowed: { type: 'boolean' },
    reason: { type: 'string' },
    prevHash: { type: 'string', fieldName: 'prev_hash' },
    hash: { type: 'string' },
    node: { type: 'string', nullable: true },
  },
});
