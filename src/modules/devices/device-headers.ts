import { createHash } from 'node:crypto';
import { AppError } from '../../common/errors';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const DEVICE_ID_HEADER = 'x-service-device-id';
export const BINDING_TOKEN_HEADER = 'x-service-device-binding-token';
export const BINDING_TOKEN_RESPONSE_HEADER = 'X-Service-Device-Binding-Token';

/** Printable ASCII without spaces, 16 to 64 characters (the spec's device id). */
const DEVICE_ID = /^[\x21-\x7e]{16,64}$/;
const MAX_DESCRIPTIVE = 128;

export interface DeviceFacts {
  readonly deviceId: string;
  readonly platform: string | null;
  readonly platformVersion: string | null;
  readonly sdkVersion: string | null;
  /** Platform + hostname hash; version headers change on upgrades, so they are not part of it. */
  readonly fingerprint: string;
  readonly bindingToken: string | undefined;
}

function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value.length > 0 ? value[value.length - 1] : undefined;
  return value;
}

function descriptive(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, MAX_DESCRIPTIVE) : null;
}

export function readDeviceFacts(headers: Headers): DeviceFacts | undefined {
  const raw = headers[DEVICE_ID_HEADER];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !DEVICE_ID.test(raw)) throw new AppError('invalid_device_id');
  const platform = single(headers, 'x-service-platform')?.trim() ?? '';
  const hostnameHash = single(headers, 'x-service-hostname-hash')?.trim() ?? '';
  const token = single(headers, BINDING_TOKEN_HEADER)?.trim();
  return {
    deviceId: raw,
    platform: descriptive(platform),
    platformVersion: descriptive(single(headers, 'x-service-platform-version')),
    sdkVersion: descriptive(single(headers, 'x-service-sdk-version')),
    fingerprint: createHash('sha256').update(`${platform.toLowerCase()}\n${hostnameHash}`).digest('hex'),
    bindingToken: token ? token : undefined,
  };
}

export function hashBindingToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
