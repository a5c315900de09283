import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { composeMail } from './mail-composer';
import { MAIL_TRANSPORT, MailMessage, MailTransport } from './mail.types';
import { OutboxMailTransport } from './outbox.transport';

@Injectable()
export class MailService {
  private readonly transport: MailTransport;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Optional() @Inject(MAIL_TRANSPORT) transport?: MailTransport,
  ) {
    this.transport = transport ?? new OutboxMailTransport(config.mailOutboxDir);
    if (!transport && config.smtpUrl !== undefined) {
      logger.warn(
        { event: 'mail_relay_unavailable', outbox: config.mailOutboxDir },
        'SERVICE_SMTP_URL is set but no relay transport is installed: mail goes to the outbox',
      );
    }
  }

  async send(message: MailMessage): Promise<void> {
    const composed = composeMail({ from: this.config.mailFrom, ...message });
    await this.transport.deliver({ from: this.config.mailFrom, to: message.to, ...composed });
    this.logger.info({ event: 'mail_sent', message_id: composed.messageId }, 'mail handed to the transport');
  }
}
