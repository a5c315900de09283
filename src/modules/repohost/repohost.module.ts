import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { InboundDeliverySchema } from './inbound-delivery.entity';
import { InboundDeliveryRepository } from './inbound-delivery.repository';
import { RepohostController } from './repohost.controller';
import { RepohostService } from './repohost.service';

@Module({
  imports: [DatabaseModule.forFeature([InboundDeliverySchema])],
  controllers: [RepohostController],
  providers: [RepohostService, InboundDeliveryRepository],
})
export class RepohostModule {}
