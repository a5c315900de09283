import { Injectable } from '@nestjs/common';
import { WebhookSender, WebhookSendResult } from './webhook-sender.service';

@Injectable()
export class WebhooksService {
  constructor(private readonly sender: WebhookSender) {}

  async sendTest(orgId: string, callbackUrl: string): Promise<WebhookSendResult> {
    const timestamp = new Date().toISOString();
    const body = JSON.stringify({
      event: 'webhook.test',
      org_id: orgId,
      timestamp,
      message:
        'This is a test delivery from Decision Service. Verify its signature with your signing secret.',
    });
    return this.sender.send({ url: callbackUrl, orgId, event: 'webhook.test', body });
  }
}
