import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  DeletedProviderKeyResponse,
  ProviderKeyListResponse,
  ProviderKeyResponse,
  SetProviderKeyDto,
  toProviderKeyResponse,
} from './provider-keys.dto';
import { ProviderKeysService } from './provider-keys.service';

@Controller('v1/provider-keys')
@RequireRole('admin')
export class ProviderKeysController {
  constructor(private readonly providerKeys: ProviderKeysService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({
    type: ProviderKeyResponse,
    description: 'Stored, sealed; the secret is never answered back.',
  })
  @ApiErrors('encryption_key_required')
  @ApiOperation({
    summary: 'Set or rotate a provider key',
    description:
      'Write-only: the secret is stored encrypted and never answered back. Answers 409 `encryption_key_required` while SERVICE_CONFIG_ENCRYPTION_KEY is not configured.',
  })
  async set(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SetProviderKeyDto,
  ): Promise<ProviderKeyResponse> {
    return toProviderKeyResponse(await this.providerKeys.set(principal.orgId, body.backend, body.api_key));
  }

  @Get()
  @ApiOkResponse({ type: ProviderKeyListResponse })
  @ApiOperation({
    summary: 'List provider keys',
    description: 'The backends that have a key, with when each was set; never a secret.',
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<ProviderKeyListResponse> {
    return { keys: (await this.providerKeys.list(principal.orgId)).map(toProviderKeyResponse) };
  }

  @Delete(':backend')
  @ApiOkResponse({ type: DeletedProviderKeyResponse })
  @ApiErrors('provider_key_not_found')
  @ApiOperation({ summary: 'Delete a provider key' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('backend') backend: string,
  ): Promise<DeletedProviderKeyResponse> {
    await this.providerKeys.delete(principal.orgId, backend);
    return { backend, deleted: true };
  }
}
