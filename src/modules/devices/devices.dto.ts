import { Device } from './device.entity';
import { Registration } from './devices.service';

export interface DeviceResponse {
  registration_id: string;
  device_id: string;
  key_id: string;
  platform: string | null;
  platform_version: string | null;
  sdk_version: string | null;
  bound_at: string;
  last_seen_at: string;
  registered_at: string | null;
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

export interface RegistrationResponse {
  registration_id: string;
  device_id: string;
  license_token: string;
  expires_at: string;
}

export function toRegistrationResponse(registration: Registration): RegistrationResponse {
  return {
    registration_id: registration.registrationId,
    device_id: registration.deviceId,
    license_token: registration.licenseToken,
    expires_at: registration.expiresAt.toISOString(),
  };
}
