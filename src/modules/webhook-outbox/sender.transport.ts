import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { WebhookSender } from '../webhooks/webhook-sender.service';
import { DeliveryTransport, OutgoingMessage, SendOutcome } from './delivery-transport';

@Injectable()
export class SenderTransport implements DeliveryTransport {
  constructor(
    private readonly sender: WebhookSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    const started = performance.now();
    const result = await this.sender.send({
      url: message.url,
      orgId: message.orgId,
      event: message.event,
      body: message.body,
      messageId: message.webhookId,
      extraHeaders: message.jobId ? { 'X-Job-Id': message.jobId } : undefined,
      // Outbox messages get their own budget (15 s by default); the test endpoint answers its caller sooner.
      timeoutMs: this.config.webhookCallbackTimeoutMs,
    });
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    switch (result.outcome) {
      case 'delivered':
      case 'http_error':
        return {
          kind: 'response',
          statusCode: result.statusCode,
          retryAfter: result.retryAfter ?? null,
          durationMs,
        };
      case 'blocked':
        return { kind: 'blocked', reason: result.message, durationMs };
      case 'timeout':
      case 'network_error':
        return { kind: 'error', error: result.message, durationMs };
    }
  }
}
