import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { Device, DeviceSchema } from './device.entity';

export type NewDevice = Omit<Device, 'id' | 'boundAt' | 'lastSeenAt' | 'registeredAt' | 'revokedAt'>;

export interface SlotLimits {
  /** Live devices this key may hold; 0 = no per-key cap. */
  readonly perKey: number;
  /** Distinct live devices the scope may hold. */
  readonly maxDevices: number;
  readonly scope: 'organization' | 'appliance';
}

export type BindOutcome =
  | { readonly kind: 'bound'; readonly device: Device }
  | { readonly kind: 'exists'; readonly device: Device }
  | { readonly kind: 'key_full' }
  | { readonly kind: 'appliance_full' }
  | { readonly kind: 'organization_full' };

@Injectable()
export class DeviceRepository {
  constructor(private readonly em: EntityManager) {}

  findLive(keyId: string, deviceId: string): Promise<Device | null> {
    return this.em.fork().findOne(DeviceSchema, { keyId, deviceId, revokedAt: null });
  }

  /** Under the appliance slot lock, so concurrent first requests can never exceed a limit. */
  async bind(device: NewDevice, limits: SlotLimits, registered: boolean): Promise<BindOutcome> {
    return this.em.fork().transactional(async (em) => {
      await em.execute("update device_slot_locks set version = version + 1 where scope = 'appliance'");
      const existing = await em.findOne(DeviceSchema, {
        keyId: device.keyId,
        deviceId: device.deviceId,
        revokedAt: null,
      });
      if (existing) return { kind: 'exists', device: existing };
      if (
        limits.perKey > 0 &&
        (await em.count(DeviceSchema, { keyId: device.keyId, revokedAt: null })) >= limits.perKey
      ) {
        return { kind: 'key_full' };
      }
      const perOrg = limits.scope === 'organization';
      const inScope = perOrg ? { orgId: device.orgId } : {};
      const knownMachine = await em.count(DeviceSchema, {
        ...inScope,
        deviceId: device.deviceId,
        revokedAt: null,
      });
      if (knownMachine === 0) {
        const rows = perOrg
          ? await em.execute<{ n: number }[]>(
              'select count(distinct device_id) as n from devices where revoked_at is null and org_id = ?',
              [device.orgId],
            )
          : await em.execute<{ n: number }[]>(
              'select count(distinct device_id) as n from devices where revoked_at is null',
            );
        if (Number(rows[0]?.n ?? 0) >= limits.maxDevices) {
          return { kind: perOrg ? 'organization_full' : 'appliance_full' };
        }
      }
      const now = new Date().toISOString();
      const created = em.create(DeviceSchema, {
        ...device,
        id: `dev_${randomUUID().replace(/-/g, '')}`,
        boundAt: now,
        lastSeenAt: now,
        registeredAt: registered ? now : null,
        revokedAt: null,
      });
      em.persist(created);
      return { kind: 'bound', device: created };
    });
  }

  async touch(id: string, changes: Pick<Device, 'platformVersion' | 'sdkVersion'>): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(
        DeviceSchema,
        { id, revokedAt: null },
        { ...changes, lastSeenAt: new Date().toISOString() },
      );
  }

  async markRegistered(id: string): Promise<void> {
    const now = new Date().toISOString();
    await this.em
      .fork()
      .nativeUpdate(DeviceSchema, { id, revokedAt: null }, { registeredAt: now, lastSeenAt: now });
  }

  listLive(orgId: string): Promise<Device[]> {
    return this.em
      .fork()
      .find(DeviceSchema, { orgId, revokedAt: null }, { orderBy: { boundAt: 'asc', id: 'asc' } });
  }

  findLiveById(orgId: string, id: string): Promise<Device | null> {
    return this.em.fork().findOne(DeviceSchema, { id, orgId, revokedAt: null });
  }

  async revoke(orgId: string, id: string): Promise<string | undefined> {
    const now = new Date().toISOString();
    const changed = await this.em
      .fork()
      .nativeUpdate(DeviceSchema, { id, orgId, revokedAt: null }, { revokedAt: now });
    return changed > 0 ? now : undefined;
  }

  async revokeAllOfKey(keyId: string): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(DeviceSchema, { keyId, revokedAt: null }, { revokedAt: new Date().toISOString() });
  }

  async countLiveMachines(): Promise<number> {
    const rows = await this.em
      .fork()
      .execute<{ n: number }[]>(
        'select count(distinct device_id) as n from devices where revoked_at is null',
      );
    return Number(rows[0]?.n ?? 0);
  }
}
