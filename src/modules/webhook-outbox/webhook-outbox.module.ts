import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DELIVERY_TRANSPORT } from './delivery-transport';
import { SenderTransport } from './sender.transport';
import { WebhookAttemptSchema, WebhookDeliverySchema } from './webhook-delivery.entity';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookOutboxController } from './webhook-outbox.controller';
import { WebhookOutboxService } from './webhook-outbox.service';

@Module({
  imports: [
    DatabaseModule.forFeature([WebhookDeliverySchema, WebhookAttemptSchema]),
    MetricsModule,
    WebhooksModule,
  ],
  controllers: [WebhookOutboxController],
  providers: [
    WebhookDeliveryRepository,
    WebhookOutboxService,
    { provide: DELIVERY_TRANSPORT, useClass: SenderTransport },
  ],
  exports: [WebhookOutboxService],
})
export class WebhookOutboxModule {}
