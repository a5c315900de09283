import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { LicensingModule } from '../licensing/licensing.module';
import { DeviceKeyPolicy } from './device-key-policy';
import { DeviceSchema } from './device.entity';
import { DeviceLicenseSigner } from './device-license-signer';
import { DeviceRepository } from './device.repository';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';
import { DEVICE_BINDER, KEY_POLICY } from './devices.types';

@Module({
  imports: [DatabaseModule.forFeature([DeviceSchema]), LicensingModule],
  controllers: [DevicesController],
  providers: [
    DeviceRepository,
    DeviceLicenseSigner,
    DevicesService,
    { provide: DEVICE_BINDER, useExisting: DevicesService },
    { provide: KEY_POLICY, useClass: DeviceKeyPolicy },
  ],
  exports: [DevicesService, DEVICE_BINDER, KEY_POLICY],
})
export class DevicesModule {}
