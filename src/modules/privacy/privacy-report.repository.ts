import { Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import { serializeTransactionsOn } from '../../common/database';
import { pageOf, rowsToFetch } from '../../common/http/cursor-page';
import { PrivacyReportRecord, PrivacyReportSchema } from './privacy-report.entity';

export interface ReportSlot {
  readonly sequence: number;
  readonly id: string;
  readonly previousReportHash: string | null;
  /** When the report before it was generated: a report composed earlier than that may not follow it. */
  readonly previousGeneratedAt: string | null;
}

export type ComposedReport = Pick<PrivacyReportRecord, 'generatedAt' | 'sha256' | 'document'>;

export interface PrivacyReportPage {
  readonly reports: PrivacyReportRecord[];
  readonly nextCursor: string | null;
}

const APPEND_ATTEMPTS = 5;
const ID_PREFIX = 'prr_';

export function reportIdOf(sequence: number): string {
  return `${ID_PREFIX}${String(sequence).padStart(12, '0')}`;
}

export function sequenceOf(id: string): number | undefined {
  const match = /^prr_(\d{12})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

@Injectable()
export class PrivacyReportRepository {
  constructor(private readonly em: EntityManager) {}

  // Unique indexes on `sequence` and `previous_report_hash` turn a race with another writer into a retry, not a fork.
  async append(compose: (slot: ReportSlot) => ComposedReport | null): Promise<PrivacyReportRecord | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.em.fork().transactional(async (em) => {
          // Replicas append one at a time, so concurrent reports queue instead of racing for the same slot.
          await serializeTransactionsOn(em, 'privacy_reports.append');
          const last = await em.findOne(
            PrivacyReportSchema,
            { sequence: { $gt: 0 } },
            { orderBy: { sequence: 'desc' }, fields: ['sequence', 'sha256', 'generatedAt'] },
          );
          const sequence = (last?.sequence ?? 0) + 1;
          const id = reportIdOf(sequence);
          const previousReportHash = last?.sha256 ?? null;
          const composed = compose({
            sequence,
            id,
            previousReportHash,
            previousGeneratedAt: last?.generatedAt ?? null,
          });
          if (composed === null) return null;
          const row: PrivacyReportRecord = { sequence, id, previousReportHash, ...composed };
          await em.insert(PrivacyReportSchema, row);
          return row;
        });
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException) || attempt >= APPEND_ATTEMPTS) throw error;
      }
    }
  }

  async list(limit: number, beforeSequence?: number): Promise<PrivacyReportPage> {
    const rows = await this.em
      .fork()
      .find(PrivacyReportSchema, beforeSequence !== undefined ? { sequence: { $lt: beforeSequence } } : {}, {
        orderBy: { sequence: 'desc' },
        limit: rowsToFetch(limit),
      });
    const page = pageOf(rows, limit, (last) => last.id);
    return { reports: page.items, nextCursor: page.nextCursor };
  }

  async findById(id: string): Promise<PrivacyReportRecord | null> {
    return this.em.fork().findOne(PrivacyReportSchema, { id }, { populate: ['document'] });
  }

  /** Removes reports generated before `cutoff`, except the newest, which the next report must still link to. */
  async pruneBefore(cutoff: Date): Promise<number> {
    const em = this.em.fork();
    const newest = await em.findOne(
      PrivacyReportSchema,
      { sequence: { $gt: 0 } },
      { orderBy: { sequence: 'desc' }, fields: ['sequence'] },
    );
    if (!newest) return 0;
    return em.nativeDelete(PrivacyReportSchema, {
      generatedAt: { $lt: cutoff.toISOString() },
      sequence: { $lt: newest.sequence },
    });
  }
}
