import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../../common/config';
import { EGRESS_GUARD, EgressGuard } from '../egress/egress.types';
import { MAIL_TRANSPORT } from '../mail/mail.types';
import { parseSmtpUrl, SmtpRelayTransport } from './smtp-relay.transport';

/** With SERVICE_SMTP_URL set, mail goes to the relay through the egress guard; otherwise it stays in the outbox. */
@Global()
@Module({})
export class MailRelayModule {
  static forRoot(config: AppConfig): DynamicModule {
    const smtpUrl = config.smtpUrl;
    if (smtpUrl === undefined) return { module: MailRelayModule };
    return {
      module: MailRelayModule,
      providers: [
        {
          provide: MAIL_TRANSPORT,
          inject: [EGRESS_GUARD],
          useFactory: (egress: EgressGuard) => new SmtpRelayTransport(parseSmtpUrl(smtpUrl), egress),
        },
      ],
      exports: [MAIL_TRANSPORT],
    };
  }
}
