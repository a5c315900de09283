import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { WebhookSigningSecretSchema } from './webhook-secret.entity';
import { WebhookSecretRepository } from './webhook-secret.repository';
import { WebhookSecretsService } from './webhook-secrets.service';
import { WebhookSender } from './webhook-sender.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [DatabaseModule.forFeature([WebhookSigningSecretSchema])],
  controllers: [WebhooksController],
  providers: [WebhookSecretRepository, WebhookSecretsService, WebhookSender, WebhooksService],
  exports: [WebhookSender, WebhookSecretsService],
})
export class WebhooksModule {}
