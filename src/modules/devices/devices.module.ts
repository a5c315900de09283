import { Global, Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { DEVICE_BINDER } from '../access/device-binder';
import { KEY_POLICY } from '../api-keys/key-policy';
import { DeviceKeyPolicy } from './device-key-policy';
import { DeviceSchema } from './device.entity';
import { DeviceLicenseSigner } from './device-license-signer';
import { DeviceRepository } from './device.repository';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';

/** Global so the credential resolver and the API-key service find DEVICE_BINDER and KEY_POLICY. */
@Global()
@Module({
  imports: [DatabaseModule.forFeature([DeviceSchema])],
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
