import type { Role } from '../../common/auth/principal';

export interface NewKeyFacts {
  readonly orgId: string;
  readonly role: Role;
  readonly deviceLimit: number;
}

/**
 * Consulted before an API key is created through the API (the licensing module rejects a device_limit above the
 * license's max_devices_per_key with AppError 422). To supply one, export KEY_POLICY from a @Global() module imported
 * by AppModule; ApiKeysService injects it optionally and allows everything when none is provided.
 */
export interface KeyPolicy {
  checkNewKey(facts: NewKeyFacts): Promise<void> | void;
  /** After a revocation commits (device binding frees the key's device slots). */
  onKeyRevoked?(keyId: string): Promise<void> | void;
}

export const KEY_POLICY = Symbol('KEY_POLICY');

export const ALLOW_ALL_KEY_POLICY: KeyPolicy = { checkNewKey: () => undefined };
