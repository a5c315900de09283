import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { serializeTransactionsOn, sharedWrite } from '../../common/database';
import { canonicalJson } from '../../common/crypto/canonical-json';
import { GroupCommit } from '../../common/group-commit';
import { EgressDecision, EgressDecisionSchema } from './egress-decision.entity';

export const GENESIS_HASH = '0'.repeat(64);

export type NewDecision = Omit<EgressDecision, 'seq' | 'prevHash' | 'hash' | 'node'>;

export interface ChainState {
  readonly headHash: string;
  readonly length: number;
  readonly verified: boolean;
  readonly brokenAt?: number;
}

export interface DestinationSummary {
  readonly host: string;
  readonly port: number;
  readonly purpose: string;
  readonly allowed: number;
  readonly denied: number;
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly addresses: readonly string[];
}

/** The fields a row's hash covers, in canonical JSON; `prev_hash` is prepended as text. */
export function decisionHash(prevHash: string, row: Omit<EgressDecision, 'prevHash' | 'hash'>): string {
  const canonical = canonicalJson({
    seq: row.seq,
    decided_at: row.decidedAt,
    purpose: row.purpose,
    org_id: row.orgId,
    host: row.host,
    port: row.port,
    address: row.address,
    allowed: row.allowed,
    reason: row.reason,
  });
  return createHash('sha256')
    .update(prevHash + canonical, 'utf8')
    .digest('hex');
}

export interface NodeCount {
  readonly node: string | null;
  readonly allowed: number;
  readonly denied: number;
}

export interface TimeBucket {
  readonly start: string;
  readonly allowed: number;
  readonly denied: number;
}

const VERIFY_PAGE = 1000;

/** Appends are serialised so each row links to the one before it. */
@Injectable()
export class EgressDecisionRepository {
  private readonly appends = new GroupCommit<NewDecision, EgressDecision>((batch) => this.appendNow(batch));
  private readonly node = hostname();

  constructor(private readonly em: EntityManager) {}

  append(decision: NewDecision): Promise<EgressDecision> {
    return this.appends.submit(decision);
  }

  private async appendNow(decisions: readonly NewDecision[]): Promise<EgressDecision[]> {
    return sharedWrite(this.em, async (em) => {
      await serializeTransactionsOn(em, 'egress_decisions');
      // Written out rather than built and hydrated by the ORM: one read per batch, on every webhook's path.
      const head = await em.execute<{ seq: number | string; hash: string }[]>(
        'select seq, hash from egress_decisions where seq > 0 order by seq desc limit 1',
        [],
        'all',
      );
      const last = head.at(0);
      let seq = last ? Number(last.seq) : 0;
      let prevHash = last?.hash ?? GENESIS_HASH;
      const rows = decisions.map((decision): EgressDecision => {
        seq++;
        const hash = decisionHash(prevHash, { ...decision, seq });
        const row = { ...decision, seq, prevHash, hash, node: this.node };
        prevHash = row.hash;
        return row;
      });
      await em.insertMany(EgressDecisionSchema, rows);
      return rows;
    });
  }

  async verifyChain(): Promise<ChainState> {
    const em = this.em.fork();
    let prevHash = GENESIS_HASH;
    let expectedSeq = 1;
    for (;;) {
      const page = await em.find(
        EgressDecisionSchema,
        { seq: { $gte: expectedSeq } },
        { orderBy: { seq: 'asc' }, limit: VERIFY_PAGE },
      );
      for (const row of page) {
        if (
          row.seq !== expectedSeq ||
          row.prevHash !== prevHash ||
          row.hash !== decisionHash(prevHash, row)
        ) {
          return {
            headHash: await this.headHash(),
            length: await this.count(),
            verified: false,
            brokenAt: expectedSeq,
          };
        }
        prevHash = row.hash;
        expectedSeq++;
      }
      em.clear();
      if (page.length < VERIFY_PAGE) break;
    }
    return { headHash: prevHash, length: expectedSeq - 1, verified: true };
  }

  private async headHash(): Promise<string> {
    const last = await this.em
      .fork()
      .findOne(EgressDecisionSchema, { seq: { $gt: 0 } }, { orderBy: { seq: 'desc' } });
    return last?.hash ?? GENESIS_HASH;
  }

  private count(): Promise<number> {
    return this.em.fork().count(EgressDecisionSchema, {});
  }

  async countOverTime(start: string, end: string, buckets: number): Promise<TimeBucket[]> {
    const rows = await this.em
      .fork()
      .find(
        EgressDecisionSchema,
        { decidedAt: { $gte: start, $lt: end } },
        { fields: ['decidedAt', 'allowed'] },
      );
    const from = Date.parse(start);
    const width = (Date.parse(end) - from) / buckets;
    const counts = Array.from({ length: buckets }, (_, i) => ({
      start: new Date(from + Math.round(i * width)).toISOString(),
      allowed: 0,
      denied: 0,
    }));
    for (const row of rows) {
      const bucket = counts[Math.min(buckets - 1, Math.floor((Date.parse(row.decidedAt) - from) / width))];
      if (row.allowed) bucket.allowed++;
      else bucket.denied++;
    }
    return counts;
  }

  async countByNode(start: string, end: string): Promise<NodeCount[]> {
    // Counted by the database: the window can hold a day of every replica's decisions.
    const groups = await this.em
      .fork()
      .getConnection()
      .execute<{ node: string | null; allowed: boolean | number; n: number | string }[]>(
        'select node, allowed, count(*) as n from egress_decisions ' +
          'where decided_at >= ? and decided_at < ? group by node, allowed',
        [start, end],
        'all',
      );
    const counts = new Map<string | null, { allowed: number; denied: number }>();
    for (const group of groups) {
      const count = counts.get(group.node) ?? { allowed: 0, denied: 0 };
      // SQLite answers the boolean as 0/1 and counts as numbers; PostgreSQL as true/false and a bigint string.
      if (group.allowed === true || group.allowed === 1) count.allowed += Number(group.n);
      else count.denied += Number(group.n);
      counts.set(group.node, count);
    }
    return [...counts]
      .map(([node, count]) => ({ node, ...count }))
      .sort((a, b) =>
        a.node === b.node ? 0 : a.node === null ? 1 : b.node === null || a.node < b.node ? -1 : 1,
      );
  }

  async summarise(start: string, end: string): Promise<DestinationSummary[]> {
    const rows = await this.em
      .fork()
      .find(EgressDecisionSchema, { decidedAt: { $gte: start, $lt: end } }, { orderBy: { seq: 'asc' } });
    const groups = new Map<string, { summary: DestinationSummary; addresses: Set<string> }>();
    for (const row of rows) {
      const key = canonicalJson([row.host, row.port, row.purpose]);
      const group = groups.get(key);
      if (!group) {
        groups.set(key, {
          summary: {
            host: row.host,
            port: row.port,
            purpose: row.purpose,
            allowed: row.allowed ? 1 : 0,
            denied: row.allowed ? 0 : 1,
            firstSeen: row.decidedAt,
            lastSeen: row.decidedAt,
            addresses: [],
          },
          addresses: new Set(row.allowed && row.address ? [row.address] : []),
        });
        continue;
      }
      const s = group.summary;
      group.summary = {
        ...s,
        allowed: s.allowed + (row.allowed ? 1 : 0),
        denied: s.denied + (row.allowed ? 0 : 1),
        lastSeen: row.decidedAt,
      };
      if (row.allowed && row.address) group.addresses.add(row.address);
    }
    return [...groups.values()]
      .map(({ summary, addresses }) => ({ ...summary, addresses: [...addresses].sort() }))
      .sort((a, b) =>
        a.host === b.host ? a.port - b.port || (a.purpose < b.purpose ? -1 : 1) : a.host < b.host ? -1 : 1,
      );
  }
}
