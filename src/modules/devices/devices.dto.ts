import { ApiProperty } from '@nestjs/swagger';
import { Device } from './device.entity';
import { Registration } from './devices.service';

export class DeviceResponse {
  @ApiProperty({ example: 'dev_01hx3v9c2m' })
  registration_id!: string;
  @ApiProperty({ description: 'The X-Service-Device-Id the device sent.', example: 'laptop-4f2a' })
  device_id!: string;
  @ApiProperty({ description: 'The API key the device is bound to.', example: 'key_01hx3v9c2m' })
  key_id!: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'linux' })
  platform!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '6.8' })
  platform_version!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '1.4.0' })
  sdk_version!: string | null;
  @ApiProperty({ format: 'date-time' })
  bound_at!: string;
  @ApiProperty({ format: 'date-time' })
  last_seen_at!: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the device registered for a license token; null for a device only bound by use.',
  })
  registered_at!: string | null;
}

export class DeviceListResponse {
  @ApiProperty({ type: [DeviceResponse] })
  devices!: DeviceResponse[];
}

export class RegistrationResponse {
  @ApiProperty({ example: 'dev_01hx3v9c2m' })
  registration_id!: string;
  @ApiProperty({ example: 'laptop-4f2a' })
  device_id!: string;
  @ApiProperty({
    description:
      'A compact JWS (alg EdDSA) signed by the appliance; verify it with GET /v1/device/license-key.',
  })
  license_token!: string;
  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

export class DeviceLicenseKeyResponse {
  @ApiProperty({ description: 'The Ed25519 public key (SPKI PEM) that signs device license tokens.' })
  public_key_pem!: string;
  @ApiProperty({
    description: 'First 16 hex characters of the SHA-256 of the key (SPKI DER).',
    example: '3f9c0a1b2c3d4e5f',
  })
  kid!: string;
  @ApiProperty({ enum: ['EdDSA'] })
  alg!: 'EdDSA';
}

export class RevokedDeviceResponse {
  @ApiProperty({ example: 'dev_01hx3v9c2m' })
  registration_id!: string;
  @ApiProperty({ enum: [true] })
  revoked!: true;
  @ApiProperty({ format: 'date-time' })
  revoked_at!: string;
}

export function toDeviceResponse(device: Device): DeviceResponse {
  return {
    registration_id: device.id,
    device_id: device.deviceId,
    key_id: device.keyId,
    platform: device.platform,
    platform_version: device.platformVersion,
    sdk_version: device.sdkVersion,
    bound_at: device.boundAt,
    last_seen_at: device.lastSeenAt,
    registered_at: device.registeredAt,
  };
}

export function toRegistrationResponse(registration: Registration): RegistrationResponse {
  return {
    registration_id: registration.registrationId,
    device_id: registration.deviceId,
    license_token: registration.licenseToken,
    expires_at: registration.expiresAt.toISOString(),
  };
}

export function toDeviceLicenseKeyResponse(key: {
  publicKeyPem: string;
  kid: string;
}): DeviceLicenseKeyResponse {
  return { public_key_pem: key.publicKeyPem, kid: key.kid, alg: 'EdDSA' };
}

export function toRevokedDeviceResponse(result: {
  registrationId: string;
  revokedAt: string;
}): RevokedDeviceResponse {
  return { registration_id: result.registrationId, revoked: true, revoked_at: result.revokedAt };
}
