import type { RequestFacts, Role } from '../../common/auth/principal';

/**
 * The two ports device binding offers the identity modules. Both are required providers (DevicesModule exports
 * them; ApiKeysModule and AccessModule import it): a daemon wired without them fails at boot instead of letting a
 * capped key through unbound or a key past the license's caps.
 */

export interface DeviceBindingKey {
  readonly keyId: string;
  readonly orgId: string;
  readonly deviceLimit: number;
}

export interface DeviceBinding {
  readonly deviceId: string;
  /** e.g. X-Service-Device-Binding-Token on a first binding; sent back on the response. */
  readonly responseHeaders?: Record<string, string>;
}

/** Binds the calling device to a capped key (device_limit > 0), on every request made with that key. */
export interface DeviceBinder {
  bind(key: DeviceBindingKey, request: RequestFacts): Promise<DeviceBinding>;
}

export const DEVICE_BINDER = Symbol('DEVICE_BINDER');

export interface NewKeyFacts {
  readonly orgId: string;
  readonly role: Role;
  readonly deviceLimit: number;
}

/**
 * Consulted before an API key is created through the API (a device_limit above the license's max_devices_per_key is
 * refused with AppError 422). ApiKeysService requires it: without a provider the daemon does not boot.
 */
export interface KeyPolicy {
  checkNewKey(facts: NewKeyFacts): Promise<void> | void;
  /** After a revocation commits (device binding frees the key's device slots). */
  onKeyRevoked?(keyId: string): Promise<void> | void;
}

export const KEY_POLICY = Symbol('KEY_POLICY');
