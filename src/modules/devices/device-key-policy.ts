import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { LicensingService } from '../licensing/licensing.service';
import { DevicesService } from './devices.service';
import { KeyPolicy, NewKeyFacts } from './devices.types';

@Injectable()
export class DeviceKeyPolicy implements KeyPolicy {
  constructor(
    private readonly licensing: LicensingService,
    private readonly devices: DevicesService,
  ) {}

  checkNewKey(facts: NewKeyFacts): void {
    const { maxDevicesPerKey } = this.licensing.getCaps();
    if (facts.deviceLimit > maxDevicesPerKey) {
      throw AppError.validation(
        [
          {
            field: 'device_limit',
            problem: `must not exceed the license max_devices_per_key (${maxDevicesPerKey})`,
          },
        ],
        `device_limit ${facts.deviceLimit} exceeds the license max_devices_per_key (${maxDevicesPerKey}).`,
      );
    }
  }

  async onKeyRevoked(keyId: string): Promise<void> {
    await this.devices.releaseKey(keyId);
  }
}
