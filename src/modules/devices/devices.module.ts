import { Global, Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { DEVICE_BINDER } from '../access/device-binder';
import { DeviceSchema } from './device.entity';
import { DeviceLicenseSigner } from './device-license-signer';
import { DeviceRepository } from './device.repository';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';

/** Global so the credential resolver finds DEVICE_BINDER (see access/device-binder.ts). */
@Global()
@Module({
  imports: [DatabaseModule.forFeature([DeviceSchema])],
  controllers: [DevicesController],
  providers: [
    DeviceRepository,
    DeviceLicenseSigner,
    DevicesService,
    { provide: DEVICE_BINDER, useExisting: DevicesService },
  ],
  exports: [DevicesService, DEVICE_BINDER],
})
export class DevicesModule {}
