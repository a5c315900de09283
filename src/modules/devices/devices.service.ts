import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RequestFacts } from '../../common/auth/principal';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { DeviceBinder, DeviceBinding, DeviceBindingKey } from './devices.types';
import { LicensingService } from '../licensing/licensing.service';
import { Device } from './device.entity';
import {
  BINDING_TOKEN_RESPONSE_HEADER,
  DeviceFacts,
  hashBindingToken,
  readDeviceFacts,
} from './device-headers';
import { DeviceLicenseSigner } from './device-license-signer';
import { BindOutcome, DeviceRepository } from './device.repository';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export type CappedKey = DeviceBindingKey;
export type BindResult = DeviceBinding;

export interface Registration {
  readonly registrationId: string;
  readonly deviceId: string;
  readonly licenseToken: string;
  readonly expiresAt: Date;
}

export interface Caller {
  readonly orgId: string;
  readonly keyId?: string;
  readonly isAdmin: boolean;
}

export const DEVICE_LICENSE_TTL_S = 30 * 24 * 60 * 60;
const TOUCH_INTERVAL_MS = 60_000;

// Every check reads the database, so a revocation takes effect on the very next request.
@Injectable()
export class DevicesService implements DeviceBinder {
  constructor(
    private readonly repository: DeviceRepository,
    private readonly licensing: LicensingService,
    private readonly signer: DeviceLicenseSigner,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async bind(key: DeviceBindingKey, request: Pick<RequestFacts, 'headers'>): Promise<DeviceBinding> {
    const facts = readDeviceFacts(request.headers);
    if (!facts) throw new AppError('device_binding_required');
    const existing = await this.repository.findLive(key.keyId, facts.deviceId);
    if (existing) {
      this.checkBound(existing, facts);
      await this.noteSeen(existing, facts);
      return { deviceId: existing.deviceId };
    }
    // A token for a device this key has no live binding for: another key's, or a revoked device's.
    if (facts.bindingToken !== undefined) throw new AppError('invalid_device_binding_token');

    const caps = this.licensing.getCaps();
    const token = `dbt_${randomBytes(32).toString('base64url')}`;
    const outcome = await this.repository.bind(
      this.newDevice(key, facts, hashBindingToken(token)),
      {
        perKey: Math.min(key.deviceLimit, caps.maxDevicesPerKey),
        maxDevices: caps.maxDevices,
        scope: caps.maxDevicesScope,
      },
      false,
    );
    const device = this.bound(outcome, key, facts);
    if (outcome.kind === 'exists') {
      // A concurrent first request of the same machine won the race; this one must replay that token.
      this.checkBound(device, facts);
      return { deviceId: device.deviceId };
    }
    this.logger.info(
      {
        event: 'device_bound',
        org_id: key.orgId,
        key_id: key.keyId,
        registration_id: device.id,
        device_id: device.deviceId,
      },
      'device bound to a capped key',
    );
    return { deviceId: device.deviceId, responseHeaders: { [BINDING_TOKEN_RESPONSE_HEADER]: token } };
  }

  async register(caller: Caller, headers: Headers): Promise<Registration> {
    if (!caller.keyId)
      throw new AppError('forbidden', 'Device registration needs an API key, not a session token.');
    const facts = readDeviceFacts(headers);
    if (!facts)
      throw new AppError('invalid_device_id', 'X-Service-Device-Id is required to register a device.');
    const key: CappedKey = { keyId: caller.keyId, orgId: caller.orgId, deviceLimit: 0 };

    let device = await this.repository.findLive(key.keyId, facts.deviceId);
    if (device) {
      if (device.fingerprint !== facts.fingerprint) throw new AppError('device_identity_mismatch');
      await this.repository.markRegistered(device.id);
    } else {
      // Only uncapped keys get here: a capped key's request was bound by the access guard before this runs.
      const caps = this.licensing.getCaps();
      const outcome = await this.repository.bind(
        this.newDevice(key, facts, null),
        { perKey: 0, maxDevices: caps.maxDevices, scope: caps.maxDevicesScope },
        true,
      );
      device = this.bound(outcome, key, facts);
      if (outcome.kind === 'exists') await this.repository.markRegistered(device.id);
    }

    const status = this.licensing.getStatus();
    const now = Math.floor(Date.now() / 1000);
    let exp = now + DEVICE_LICENSE_TTL_S;
    if (status.status === 'active' && status.expiresAt)
      exp = Math.min(exp, Math.floor(status.expiresAt.getTime() / 1000));
    const licenseToken = this.signer.sign({
      iss: 'decision-service',
      jti: device.id,
      device_id: device.deviceId,
      key_id: key.keyId,
      org_id: key.orgId,
      edition: status.edition,
      entitlements: this.licensing.getEntitlements(),
      iat: now,
      exp,
    });
    this.logger.info(
      {
        event: 'device_registered',
        org_id: key.orgId,
        key_id: key.keyId,
        registration_id: device.id,
        device_id: device.deviceId,
      },
      'device registered',
    );
    return {
      registrationId: device.id,
      deviceId: device.deviceId,
      licenseToken,
      expiresAt: new Date(exp * 1000),
    };
  }

  list(orgId: string): Promise<Device[]> {
    return this.repository.listLive(orgId);
  }

  async revoke(
    caller: Caller,
    registrationId: string,
  ): Promise<{ registrationId: string; revokedAt: string }> {
    const device = await this.repository.findLiveById(caller.orgId, registrationId);
    if (!device) throw new AppError('device_not_found');
    if (!caller.isAdmin && device.keyId !== caller.keyId) {
      throw new AppError('insufficient_role', 'Only an admin may revoke a device bound to another key.');
    }
    const revokedAt = await this.repository.revoke(caller.orgId, registrationId);
    if (!revokedAt) throw new AppError('device_not_found');
    this.logger.info(
      { event: 'device_revoked', org_id: caller.orgId, key_id: device.keyId, registration_id: device.id },
      'device revoked',
    );
    return { registrationId, revokedAt };
  }

  async releaseKey(keyId: string): Promise<number> {
    return this.repository.revokeAllOfKey(keyId);
  }

  licenseKey(): { publicKeyPem: string; kid: string } {
    return { publicKeyPem: this.signer.publicKeyPem(), kid: this.signer.kid };
  }

  private checkBound(device: Device, facts: DeviceFacts): void {
    if (device.fingerprint !== facts.fingerprint) throw new AppError('device_identity_mismatch');
    if (device.bindingTokenHash === null) {
      // Registered under this key before it was capped: it has no token, so it must be re-bound by an admin.
      throw new AppError(
        'invalid_device_binding_token',
        'This device was registered without a binding: revoke and re-bind it.',
      );
    }
    if (facts.bindingToken === undefined) throw new AppError('device_binding_token_required');
    const presented = Buffer.from(hashBindingToken(facts.bindingToken), 'hex');
    if (!timingSafeEqual(presented, Buffer.from(device.bindingTokenHash, 'hex'))) {
      throw new AppError('invalid_device_binding_token');
    }
  }

  private async noteSeen(device: Device, facts: DeviceFacts): Promise<void> {
    const stale = Date.now() - Date.parse(device.lastSeenAt) > TOUCH_INTERVAL_MS;
    if (stale || device.platformVersion !== facts.platformVersion || device.sdkVersion !== facts.sdkVersion) {
      await this.repository.touch(device.id, {
        platformVersion: facts.platformVersion,
        sdkVersion: facts.sdkVersion,
      });
    }
  }

  private newDevice(key: CappedKey, facts: DeviceFacts, bindingTokenHash: string | null) {
    return {
      orgId: key.orgId,
      keyId: key.keyId,
      deviceId: facts.deviceId,
      platform: facts.platform,
      platformVersion: facts.platformVersion,
      sdkVersion: facts.sdkVersion,
      fingerprint: facts.fingerprint,
      bindingTokenHash,
    };
  }

  private bound(outcome: BindOutcome, key: CappedKey, facts: DeviceFacts): Device {
    switch (outcome.kind) {
      case 'bound':
      case 'exists':
        return outcome.device;
      case 'key_full':
        this.logger.warn(
          {
            event: 'device_limit_reached',
            scope: 'key',
            org_id: key.orgId,
            key_id: key.keyId,
            device_id: facts.deviceId,
          },
          'all device slots of the key are in use',
        );
        throw new AppError(
          'device_limit_reached',
          'All device slots of this key are in use: revoke a device first.',
        );
      case 'appliance_full':
        this.logger.warn(
          {
            event: 'device_limit_reached',
            scope: 'appliance',
            org_id: key.orgId,
            key_id: key.keyId,
            device_id: facts.deviceId,
          },
          'the license max_devices is reached',
        );
        throw new AppError(
          'device_limit_reached',
          'The appliance has reached the device limit of its license (max_devices): revoke a device first.',
        );
      case 'organization_full':
        this.logger.warn(
          {
            event: 'device_limit_reached',
            scope: 'organization',
            org_id: key.orgId,
            key_id: key.keyId,
            device_id: facts.deviceId,
          },
          'the organization has used its community max_devices',
        );
        throw new AppError(
          'device_limit_reached',
          'Your organization has reached the community edition device limit (max_devices): revoke a device first.',
        );
    }
  }
}
