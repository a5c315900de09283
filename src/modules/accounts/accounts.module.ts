import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuditModule } from '../audit/audit.module';
import { MailModule } from '../mail/mail.module';
import { ACCOUNT_SCHEMAS } from './account.entities';
import { AccountMailer } from './account-mailer';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import { MeController } from './me.controller';
import { OrganizationsService } from './organizations.service';
import { SessionsService } from './sessions.service';

@Module({
  imports: [DatabaseModule.forFeature(ACCOUNT_SCHEMAS), ApiKeysModule, AuditModule, MailModule],
  controllers: [AuthController, MeController],
  providers: [
    AccountsRepository,
    AccountsService,
    AccountMailer,
    AuthService,
    LoginThrottle,
    OrganizationsService,
    SessionsService,
  ],
  exports: [AccountsService, OrganizationsService, SessionsService],
})
export class AccountsModule {}
