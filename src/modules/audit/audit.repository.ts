import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import type { Transaction } from '../../common/database';
import { AuditEventEntity, AuditEventSchema } from './audit-event.entity';

export interface AuditQuery {
  readonly orgId: string;
  /** Also return events that belong to no organization (operator organization admins). */
  readonly includeUnscoped: boolean;
  readonly since?: string;
  readonly limit: number;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly em: EntityManager) {}

  async insert(row: Omit<AuditEventEntity, 'id' | 'seq'>, tx?: Transaction): Promise<void> {
    const event = { ...row, id: `aud_${randomUUID().replace(/-/g, '')}` };
    if (tx) await tx.insertAll(AuditEventSchema, [event]);
    else await this.em.fork().insert(AuditEventSchema, event);
  }

  async find(query: AuditQuery): Promise<AuditEventEntity[]> {
    const scope = query.includeUnscoped
      ? { $or: [{ orgId: query.orgId }, { orgId: null }] }
      : { orgId: query.orgId };
    return this.em
      .fork()
      .find(
        AuditEventSchema,
        { ...scope, ...(query.since ? { createdAt: { $gt: query.since } } : {}) },
        { orderBy: { createdAt: 'desc', seq: 'desc' }, limit: query.limit },
      );
  }
}
