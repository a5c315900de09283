import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { EgressModule } from '../egress/egress.module';
import { EGRESS_GUARD, EgressGuard } from '../egress/egress.types';
import { MAIL_TRANSPORT, MailTransport } from './mail.types';
import { MailService } from './mail.service';
import { OutboxMailTransport } from './outbox.transport';
import { parseSmtpUrl, SmtpRelayTransport } from './smtp-relay.transport';

/** With SERVICE_SMTP_URL set, mail goes to the relay through the egress guard; otherwise it stays in the outbox. */
@Module({
  imports: [EgressModule],
  providers: [
    {
      provide: MAIL_TRANSPORT,
      inject: [APP_CONFIG, EGRESS_GUARD],
      useFactory: (config: AppConfig, egress: EgressGuard): MailTransport =>
        config.smtpUrl === undefined
          ? new OutboxMailTransport(config.mailOutboxDir)
          : new SmtpRelayTransport(parseSmtpUrl(config.smtpUrl), egress),
    },
    MailService,
  ],
  exports: [MailService],
})
export class MailModule {}
