import { Server } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { randomToken, sha256Hex } from '../../common/crypto';
import { MailService } from '../mail/mail.service';
import { AuthTokenPurpose } from './account.entities';
import { AccountsRepository } from './accounts.repository';

const LIFETIME_MS: Record<AuthTokenPurpose, number> = {
  verify_email: 48 * 3600_000,
  reset_password: 3600_000,
};

/** Mails single-use links; the token is stored only as its SHA-256 and exists in clear only in the message. */
@Injectable()
export class AccountMailer {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly mail: MailService,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async sendVerification(user: { id: string; email: string }): Promise<void> {
    const token = await this.newToken(user.id, 'verify_email');
    const link = `${this.baseUrl()}/auth/verify?token=${token}`;
    await this.mail.send({
      to: user.email,
      subject: 'Confirm your e-mail address',
      text: [
        'Hello,',
        '',
        'Please confirm your e-mail address for Decision Service by opening this link:',
        '',
        link,
        '',
        'The link works once and expires in 48 hours.',
        'If you did not sign up, ignore this message.',
      ].join('\n'),
    });
  }

  async sendPasswordReset(user: { id: string; email: string }): Promise<void> {
    await this.repository.retireAuthTokens(user.id, 'reset_password', new Date().toISOString());
    const token = await this.newToken(user.id, 'reset_password');
    await this.mail.send({
      to: user.email,
      subject: 'Reset your password',
      text: [
        'Hello,',
        '',
        'Someone asked to reset the password of your Decision Service account.',
        'To choose a new password, POST {"token": "<token>", "new_password": "..."} to /auth/reset-password',
        'with the token of this link:',
        '',
        `${this.baseUrl()}/auth/reset-password?token=${token}`,
        '',
        'The token works once and expires in 1 hour. If you did not ask for this, ignore this message:',
        'your password stays as it is.',
      ].join('\n'),
    });
  }

  private async newToken(userId: string, purpose: AuthTokenPurpose): Promise<string> {
    const token = randomToken(32);
    await this.repository.insertAuthToken({
      userId,
      purpose,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + LIFETIME_MS[purpose]).toISOString(),
    });
    return token;
  }

  /** SERVICE_PUBLIC_BASE_URL, else the address the daemon actually listens on. */
  private baseUrl(): string {
    if (this.config.publicBaseUrl !== undefined) return this.config.publicBaseUrl.replace(/\/+$/, '');
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const address = server?.address();
    if (address && typeof address === 'object') {
      const host = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host;
      return `http://${host}:${address.port}`;
    }
    return `http://${this.config.host}:${this.config.port}`;
  }
}
