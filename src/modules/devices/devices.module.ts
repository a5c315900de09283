import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { DeviceSchema } from './device.entity';
import { DeviceLicenseSigner } from './device-license-signer';
import { DeviceRepository } from './device.repository';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';

@Module({
  imports: [DatabaseModule.forFeature([DeviceSchema])],
  controllers: [DevicesController],
  providers: [DeviceRepository, DeviceLicenseSigner, DevicesService],
  exports: [DevicesService],
})
export class DevicesModule {}
