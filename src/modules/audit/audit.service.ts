import { Inject, Injectable } from '@nestjs/common';
import type { Transaction } from '../../common/database';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { AuditEventEntity } from './audit-event.entity';
import { AuditRepository } from './audit.repository';
import { AuditEntry, AuditEventView } from './audit.types';

@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Pass the transaction of the change it describes, so both commit together. */
  async record(entry: AuditEntry, tx?: Transaction): Promise<void> {
    await this.repository.insert(
      {
        orgId: entry.orgId ?? null,
        event: entry.event,
        actorType: entry.actor.type,
        actorId: entry.actor.id ?? null,
        ip: entry.ip ?? null,
        targetType: entry.target?.type ?? null,
        targetId: entry.target?.id ?? null,
        details: entry.details ? JSON.stringify(entry.details) : null,
        createdAt: new Date().toISOString(),
      },
      tx,
    );
    this.logger.info(
      {
        event: 'audit',
        audit_event: entry.event,
        org_id: entry.orgId,
        actor_type: entry.actor.type,
        actor_id: entry.actor.id,
      },
      'audit event',
    );
  }

  async list(query: {
    orgId: string;
    isOperatorOrg: boolean;
    since?: string;
    limit: number;
  }): Promise<AuditEventView[]> {
    const rows = await this.repository.find({
      orgId: query.orgId,
      includeUnscoped: query.isOperatorOrg,
      since: query.since,
      limit: query.limit,
    });
    return rows.map(toView);
  }
}

function toView(row: AuditEventEntity): AuditEventView {
  return {
    id: row.id,
    orgId: row.orgId,
    event: row.event,
    actor: {
      type: row.actorType as AuditEventView['actor']['type'],
      ...(row.actorId ? { id: row.actorId } : {}),
    },
    ip: row.ip,
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId } : null,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : {},
    createdAt: row.createdAt,
  };
}
