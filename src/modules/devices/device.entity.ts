import { EntitySchema } from '@mikro-orm/core';

/** Binding and registration share the record, so revoking it frees the slot and kills the binding token at once. */
export interface Device {
  id: string;
  orgId: string;
  keyId: string;
  deviceId: string;
  platform: string | null;
  platformVersion: string | null;
  sdkVersion: string | null;
  /** SHA-256 of platform + hostname hash: what a clone cannot keep. */
  fingerprint: string;
  /** SHA-256 of the binding token; null for devices of uncapped keys, which are registered but never bound. */
  bindingTokenHash: string | null;
  boundAt: string;
  lastSeenAt: string;
  registeredAt: string | null;
  revokedAt: string | null;
}

export const DeviceSchema = new EntitySchema<Device>({
  name: 'Device',
  tableName: 'devices',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    keyId: { type: 'string', fieldName: 'key_id' },
    deviceId: { type: 'string', fieldName: 'device_id' },
    platform: { type: 'string', nullable: true },
    platformVersion: { type: 'string', fieldName: 'platform_version', nullable: true },
    sdkVersion: { type: 'string', fieldName: 'sdk_version', nullable: true },
    fingerprint: { type: 'string' },
    bindingTokenHash: { type: 'string', fieldName: 'binding_token_hash', nullable: true },
    boundAt: { type: 'string', fieldName: 'bound_at' },
    lastSeenAt: { type: 'string', fieldName: 'last_seen_at' },
    registeredAt: { type: 'string', fieldName: 'registered_at', nullable: true },
    revokedAt: { type: 'string', fieldName: 'revoked_at', nullable: true },
  },
});
