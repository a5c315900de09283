import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ROLES, Role } from '../../common/auth/principal';
import { ApiKeyView, CreatedApiKey } from './api-keys.types';

export class CreateApiKeyDto {
  @IsString()
  @Length(1, 200)
  label!: string;

  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  expires_at?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  device_limit?: number;

  @IsOptional()
  @IsIn(ROLES)
  role?: Role;
}

export class ApiKeyResponse {
  @ApiProperty({ example: 'key_01hx3v9c2m' })
  id!: string;
  @ApiProperty({ example: 'ci runner' })
  label!: string;
  @ApiProperty({ description: 'The first 12 characters of the key: the only key material ever listed.' })
  key_prefix!: string;
  @ApiProperty({ enum: ROLES })
  role!: Role;
  @ApiProperty({ description: '0 means no per-key device cap.', example: 0 })
  device_limit!: number;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_used_at!: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ description: 'The full secret, shown in this answer only.' })
  raw_key!: string;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyResponse] })
  keys!: ApiKeyResponse[];
}

export class RevokedApiKeyResponse {
  @ApiProperty()
  id!: string;
  @ApiProperty({ enum: [true] })
  revoked!: true;
  @ApiProperty({ format: 'date-time' })
  revoked_at!: string;
}

export function toApiKeyResponse(key: ApiKeyView): ApiKeyResponse {
  return {
    id: key.id,
    label: key.label,
    key_prefix: key.keyPrefix,
    role: key.role,
    device_limit: key.deviceLimit,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
  };
}

export function toCreatedApiKeyResponse(key: CreatedApiKey): CreatedApiKeyResponse {
  return { ...toApiKeyResponse(key), raw_key: key.rawKey };
}
