import { Body, Controller, Delete, Get, HttpCode, Ip, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AppError } from '../../common/errors';
import { ApiErrors } from '../../common/openapi';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { Idempotent, IdempotencyOperation, IdempotentRetry } from '../idempotency/idempotency.types';
import { actorOf } from '../audit/audit.types';
import {
  ApiKeyListResponse,
  CreateApiKeyDto,
  CreatedApiKeyResponse,
  RevokedApiKeyResponse,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';
import { KeyActor } from './api-keys.types';

function keyActor(principal: Principal, ip: string): KeyActor {
  return { orgId: principal.orgId, role: principal.role, actor: actorOf(principal), ip };
}

@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiCreatedResponse({
    type: CreatedApiKeyResponse,
    description: 'The new key; raw_key is shown only here.',
  })
  @HttpCode(201)
  @RequireRole('member')
  @Idempotent<ApiKeysController>((keys, retry) => keys.created(retry))
  @ApiErrors('conflict')
  @ApiOperation({
    summary: 'Create an API key',
    description: 'The secret `raw_key` is answered only here: store it.',
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Ip() ip: string,
    @Body() body: CreateApiKeyDto,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<CreatedApiKeyResponse> {
    const key = await this.apiKeys.create(keyActor(principal, ip), {
      label: body.label,
      role: body.role,
      deviceLimit: body.device_limit,
      expiresAt: body.expires_at,
      idempotencyId: operation,
    });
    return toCreatedApiKeyResponse(key);
  }

  /** A retried creation whose answer was lost cannot show the raw key (kept nowhere): refused, naming the key. */
  async created(retry: IdempotentRetry): Promise<undefined> {
    const key = await this.apiKeys.createdBy(retry.principal.orgId, retry.operationId);
    if (!key) return undefined;
    throw new AppError(
      'conflict',
      `The first request with this Idempotency-Key created API key ${key.id} (${key.keyPrefix}…), but the daemon ` +
        'stopped before its answer was kept, and its secret is stored nowhere: revoke that key and create another ' +
        'with a new Idempotency-Key.',
    );
  }

  @Get()
  @ApiOkResponse({ type: ApiKeyListResponse })
  @ApiOperation({
    summary: 'List API keys',
    description:
      'The active keys of the organization, oldest first, without key material beyond `key_prefix`. Not paged.',
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyListResponse> {
    return { keys: (await this.apiKeys.list(principal.orgId)).map(toApiKeyResponse) };
  }

  @Delete(':key_id')
  @ApiOkResponse({ type: RevokedApiKeyResponse })
  @ApiErrors('cannot_revoke_last_key', 'api_key_not_found')
  @RequireRole('member')
  @ApiOperation({
    summary: 'Revoke an API key',
    description:
      'Takes effect at once: the key then answers 401 `invalid_api_key`. The last active key of the organization cannot be revoked (400 `cannot_revoke_last_key`).',
  })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Ip() ip: string,
    @Param('key_id') keyId: string,
  ): Promise<RevokedApiKeyResponse> {
    const result = await this.apiKeys.revoke(keyActor(principal, ip), keyId);
    return { id: result.id, revoked: true, revoked_at: result.revokedAt };
  }
}
