import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { AUDIT_EVENTS, AuditActor, AuditEventView } from './audit.types';

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

export class AuditActorResponse {
  @ApiProperty({ enum: ['user', 'api_key', 'cli', 'system', 'anonymous'] })
  type!: AuditActor['type'];
  @ApiProperty({
    required: false,
    description: 'The user or key id; absent for the CLI and anonymous callers.',
  })
  id?: string;
}

export class AuditTargetResponse {
  @ApiProperty({ example: 'api_key' })
  type!: string;
  @ApiProperty({ example: 'key_01hx3v9c2m' })
  id!: string;
}

export class AuditEventResponse {
  @ApiProperty()
  id!: string;
  @ApiProperty({ enum: AUDIT_EVENTS })
  event!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Null for an event of no organization.' })
  org_id!: string | null;
  @ApiProperty({ type: AuditActorResponse })
  actor!: AuditActorResponse;
  @ApiProperty({ type: 'string', nullable: true })
  ip!: string | null;
  @ApiProperty({ type: AuditTargetResponse, nullable: true })
  target!: AuditTargetResponse | null;
  @ApiProperty({
    type: 'object',
    description: 'Facts of the event (never a secret).',
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
    example: { email: 'ada@example.com' },
  })
  details!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class AuditLogResponse {
  @ApiProperty({ type: [AuditEventResponse], description: 'Newest first.' })
  events!: AuditEventResponse[];
}

export function toAuditEventResponse(view: AuditEventView): AuditEventResponse {
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
