import type { RequestFacts, Role } from '../../common/auth/principal';

// Both ports are required providers: a daemon wired without them fails at boot instead of letting a capped key through
// unbound.

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

export interface DeviceBinder {
  bind(key: DeviceBindingKey, request: RequestFacts): Promise<DeviceBinding>;
}

export const DEVICE_BINDER = Symbol('DEVICE_BINDER');

export interface NewKeyFacts {
  readonly orgId: string;
  readonly role: Role;
  readonly deviceLimit: number;
}

export interface KeyPolicy {
  checkNewKey(facts: NewKeyFacts): Promise<void> | void;
  /** After a revocation commits (device binding frees the key's device slots). */
  onKeyRevoked?(keyId: string): Promise<void> | void;
}

export const KEY_POLICY = Symbol('KEY_POLICY');
