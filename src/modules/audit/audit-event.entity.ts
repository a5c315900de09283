import { EntitySchema } from '@mikro-orm/core';

export interface AuditEventEntity {
  seq?: number;
  id: string;
  orgId: string | null;
  event: string;
  actorType: string;
  actorId: string | null;
  ip: string | null;
  targetType: string | null;
  targetId: string | null;
  details: string | null;
  createdAt: string;
}

export const AuditEventSchema = new EntitySchema<AuditEventEntity>({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    seq: { type: 'number', primary: true, autoincrement: true },
    id: { type: 'string', unique: true },
    orgId: { type: 'string', nullable: true },
    event: { type: 'string' },
    actorType: { type: 'string' },
    actorId: { type: 'string', nullable: true },
    ip: { type: 'string', nullable: true },
    targetType: { type: 'string', nullable: true },
    targetId: { type: 'string', nullable: true },
    details: { type: 'text', nullable: true },
    createdAt: { type: 'string' },
  },
});
