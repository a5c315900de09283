import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { composeMail } from './mail-composer';
import { MAIL_TRANSPORT, MailMessage, MailTransport } from './mail.types';

@Injectable()
export class MailService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Inject(MAIL_TRANSPORT) private readonly transport: MailTransport,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const composed = composeMail({ from: this.config.mailFrom, ...message });
    await this.transport.deliver({ from: this.config.mailFrom, to: message.to, ...composed });
    this.logger.info({ event: 'mail_sent', message_id: composed.messageId }, 'mail handed to the transport');
  }
}
