import { Controller, Delete, Get, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
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
  @ApiOperation({
    summary: 'Register a device under the calling API key',
    description:
      'Needs an API key, not a session token, and the device headers (`X-Service-Device-Id` at least). Answers a signed device license token.',
  })
  async register(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<RegistrationResponse> {
    return toRegistrationResponse(await this.devices.register(callerOf(principal), request.headers));
  }

  @Get('list')
  @ApiOkResponse({ type: DeviceListResponse })
  @ApiOperation({
    summary: 'List devices',
    description: 'The devices registered under the keys of the organization.',
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<DeviceListResponse> {
    return { devices: (await this.devices.list(principal.orgId)).map(toDeviceResponse) };
  }

  @Get('license-key')
  @ApiOkResponse({ type: DeviceLicenseKeyResponse })
  @ApiOperation({ summary: 'Get the public key that verifies device licenses' })
  licenseKey(): DeviceLicenseKeyResponse {
    return toDeviceLicenseKeyResponse(this.devices.licenseKey());
  }

  @Delete(':registrationId')
  @ApiOkResponse({ type: RevokedDeviceResponse })
  @ApiErrors('device_not_found', 'insufficient_role')
  @ApiOperation({
    summary: 'Revoke a device registration',
    description:
      "Frees the device's slot on its key. A device bound to another key than the caller's needs the `admin` role (403 `insufficient_role`).",
  })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('registrationId') registrationId: string,
  ): Promise<RevokedDeviceResponse> {
    return toRevokedDeviceResponse(await this.devices.revoke(callerOf(principal), registrationId));
  }
}
