import { Controller, Delete, Get, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { hasRole } from '../../common/auth/authorization';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  DeviceLicenseKeyResponse,
  DeviceListResponse,
  RegistrationResponse,
  RevokedDeviceResponse,
  toDeviceLicenseKeyResponse,
  toDeviceResponse,
  toRegistrationResponse,
  toRevokedDeviceResponse,
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
  @ApiCreatedResponse({
    type: RegistrationResponse,
    description: 'The device is bound to the key and licensed.',
  })
  @ApiErrors('forbidden')
  async register(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<RegistrationResponse> {
    return toRegistrationResponse(await this.devices.register(callerOf(principal), request.headers));
  }

  @Get('list')
  @ApiOkResponse({ type: DeviceListResponse })
  async list(@CurrentPrincipal() principal: Principal): Promise<DeviceListResponse> {
    return { devices: (await this.devices.list(principal.orgId)).map(toDeviceResponse) };
  }

  @Get('license-key')
  @ApiOkResponse({ type: DeviceLicenseKeyResponse })
  licenseKey(): DeviceLicenseKeyResponse {
    return toDeviceLicenseKeyResponse(this.devices.licenseKey());
  }

  @Delete(':registrationId')
  @ApiOkResponse({ type: RevokedDeviceResponse })
  @ApiErrors('device_not_found', 'insufficient_role')
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('registrationId') registrationId: string,
  ): Promise<RevokedDeviceResponse> {
    return toRevokedDeviceResponse(await this.devices.revoke(callerOf(principal), registrationId));
  }
}
