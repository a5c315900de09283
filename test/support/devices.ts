import { createHash } from 'node:crypto';

/** The device headers an SDK sends; `host` feeds the hostname hash (the machine fingerprint). */
export function deviceHeaders(
  deviceId: string,
  options: {
    host?: string;
    platform?: string;
    platformVersion?: string;
    sdkVersion?: string;
    token?: string;
  } = {},
): Record<string, string> {
  return {
    'x-service-device-id': deviceId,
    'x-service-platform': options.platform ?? 'linux',
    'x-service-platform-version': options.platformVersion ?? '6.8.0',
    'x-service-hostname-hash': createHash('sha256')
      .update(`salt:${options.host ?? deviceId}`)
      .digest('hex'),
    'x-service-sdk-version': options.sdkVersion ?? '1.4.2',
    ...(options.token ? { 'x-service-device-binding-token': options.token } : {}),
  };
}

/** A device id of exactly `length` characters, unique per label. */
export function deviceId(label: string, length = 32): string {
  return `${label}-${'0123456789abcdef'.repeat(5)}`.slice(0, length).padEnd(length, 'x');
}
