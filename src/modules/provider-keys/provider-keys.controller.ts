import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ProviderKeyResponse, SetProviderKeyDto, toProviderKeyResponse } from './provider-keys.dto';
import { ProviderKeysService } from './provider-keys.service';

@Controller('v1/provider-keys')
@RequireRole('admin')
export class ProviderKeysController {
  constructor(private readonly providerKeys: ProviderKeysService) {}

  @Post()
  @HttpCode(200)
  async set(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SetProviderKeyDto,
  ): Promise<ProviderKeyResponse> {
    return toProviderKeyResponse(await this.providerKeys.set(principal.orgId, body.backend, body.api_key));
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<{ keys: ProviderKeyResponse[] }> {
    return { keys: (await this.providerKeys.list(principal.orgId)).map(toProviderKeyResponse) };
  }

  @Delete(':backend')
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('backend') backend: string,
  ): Promise<{ backend: string; deleted: true }> {
    await this.providerKeys.delete(principal.orgId, backend);
    return { backend, deleted: true };
  }
}
