import { Controller, Delete, Get, Param, Post, Req } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { hasRole } from '../../common/auth/authorization';
import { Principal } from '../../common/auth/principal';
import {
  DeviceResponse,
  RegistrationResponse,
  toDeviceResponse,
  toRegistrationResponse,
} from './devices.dto';
import { Caller, DevicesService } from './devices.service';

function callerOf(principal: Principal): Caller {
  return {
    orgId: principal.orgId,
    keyId: principal.keyId,
    isAdmin: hasRole(principal.role, 'admin'),
  };
}

@Controller('v1/device')
export class DevicesController {
  constructor(private readonly devices: DevicesService) {}

  @Post('register')
  async register(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<RegistrationResponse> {
    return toRegistrationResponse(await this.devices.register(callerOf(principal), request.headers));
  }

  @Get('list')
  async list(@CurrentPrincipal() principal: Principal): Promise<{ devices: DeviceResponse[] }> {
    return { devices: (await this.devices.list(principal.orgId)).map(toDeviceResponse) };
  }

  @Get('license-key')
  licenseKey(): { public_key_pem: string; kid: string; alg: 'EdDSA' } {
    const key = this.devices.licenseKey();
    return { public_key_pem: key.publicKeyPem, kid: key.kid, alg: 'EdDSA' };
  }

  @Delete(':registrationId')
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('registrationId') registrationId: string,
  ): Promise<{ registration_id: string; revoked: true; revoked_at: string }> {
    const result = await this.devices.revoke(callerOf(principal), registrationId);
    return { registration_id: result.registrationId, revoked: true, revoked_at: result.revokedAt };
  }
}
