import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { Problem } from '../../common/validation';
import { ProviderKey } from './provider-key.entity';

export const MAX_PROVIDER_SECRET_BYTES = 16 * 1024;

export class SetProviderKeyDto {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9_.-]{0,63}$/, {
    message: 'backend must be 1 to 64 lowercase letters, digits, ".", "_" or "-"',
  })
  backend!: string;

  @IsString()
  @Problem((value) =>
    typeof value !== 'string'
      ? undefined
      : value.trim() === ''
        ? 'must not be empty'
        : Buffer.byteLength(value, 'utf8') > MAX_PROVIDER_SECRET_BYTES
          ? `must be at most ${MAX_PROVIDER_SECRET_BYTES} bytes`
          : undefined,
  )
  api_key!: string;
}

export class ProviderKeyResponse {
  @ApiProperty({ example: 'openai' })
  backend!: string;
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class ProviderKeyListResponse {
  @ApiProperty({ type: [ProviderKeyResponse] })
  keys!: ProviderKeyResponse[];
}

export class DeletedProviderKeyResponse {
  @ApiProperty({ example: 'openai' })
  backend!: string;
  @ApiProperty({ enum: [true] })
  deleted!: true;
}

export function toProviderKeyResponse(key: Pick<ProviderKey, 'backend' | 'updatedAt'>): ProviderKeyResponse {
  return { backend: key.backend, updated_at: key.updatedAt };
}
