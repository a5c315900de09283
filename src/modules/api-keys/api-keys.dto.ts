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

export function toApiKeyResponse(key: ApiKeyView): Record<string, unknown> {
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

export function toCreatedApiKeyResponse(key: CreatedApiKey): Record<string, unknown> {
  return { ...toApiKeyResponse(key), raw_key: key.rawKey };
}
