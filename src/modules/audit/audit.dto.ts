import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { AuditEventView } from './audit.types';

export class AuditLogQuery {
  @IsOptional()
  @IsISO8601({ strict: true })
  since?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

export function toAuditEventResponse(view: AuditEventView): Record<string, unknown> {
  return {
    id: view.id,
    event: view.event,
    org_id: view.orgId,
    actor: view.actor,
    ip: view.ip,
    target: view.target,
    details: view.details,
    created_at: view.createdAt,
  };
}
