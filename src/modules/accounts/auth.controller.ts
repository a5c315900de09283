import { Body, Controller, Get, HttpCode, Ip, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/openapi';
import {
  EmailVerifiedResponse,
  FORGOT_PASSWORD_RESPONSE,
  ForgotPasswordDto,
  LoginDto,
  LoginResponse,
  PasswordResetRequestedResponse,
  PasswordResetResponse,
  ResetPasswordDto,
  SignupDto,
  SignupResponse,
  toSignupResponse,
  VerifyQuery,
} from './accounts.dto';
import { AccountsService } from './accounts.service';
import { AuthService } from './auth.service';
import { RESET_PAGE_CONTENT_SECURITY_POLICY, RESET_PASSWORD_PAGE } from './reset-password-page';

/** The hosted auth router: public, no credential needed. */
@Public()
@Controller('auth')
export class AuthController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly auth: AuthService,
  ) {}

  @Post('signup')
  @HttpCode(201)
  @ApiCreatedResponse({
    type: SignupResponse,
    description: 'The organization, its owner and a bootstrap key.',
  })
  @ApiErrors('signup_disabled', 'email_taken', 'conflict', 'rate_limited')
  @ApiOperation({
    summary: 'Sign up: create an organization, its owner and a first API key',
    description:
      "Public. Creates the organization, its owner user and a bootstrap API key in one step, then sends a verification e-mail. The bootstrap key's `raw_key` is shown only in this answer.",
  })
  async signup(@Body() body: SignupDto, @Ip() ip: string): Promise<SignupResponse> {
    const account = await this.accounts.signup(
      {
        email: body.email,
        password: body.password,
        name: body.name,
        organizationName: body.organization_name,
      },
      ip,
    );
    return toSignupResponse(account);
  }

  @Post('login')
  @HttpCode(200)
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrors('invalid_credentials', 'rate_limited')
  @ApiOperation({
    summary: 'Log in with an e-mail address and a password',
    description:
      'Public. Answers a session token to send as `Authorization: Bearer <access_token>`. Repeated failures are throttled (429 `rate_limited`).',
  })
  async login(@Body() body: LoginDto, @Ip() ip: string): Promise<LoginResponse> {
    const session = await this.auth.login(body.email, body.password, ip);
    return { access_token: session.token, token_type: 'bearer', expires_in: session.expiresIn };
  }

  @Get('verify')
  @ApiOkResponse({ type: EmailVerifiedResponse })
  @ApiErrors('invalid_token')
  @ApiOperation({
    summary: 'Verify an e-mail address',
    description: 'Public. `token` is the verification token of the e-mail sent at sign-up.',
  })
  async verify(@Query() query: VerifyQuery, @Ip() ip: string): Promise<EmailVerifiedResponse> {
    await this.auth.verifyEmail(query.token, ip);
    return { status: 'ok', verified: true };
  }

  @Post('forgot-password')
  @HttpCode(200)
  @ApiOkResponse({
    type: PasswordResetRequestedResponse,
    description: 'The same answer whether or not the address has an account.',
  })
  @ApiOperation({
    summary: 'Request a password-reset e-mail',
    description: 'Public. The answer is the same whether or not the address has an account.',
  })
  forgotPassword(@Body() body: ForgotPasswordDto, @Ip() ip: string): PasswordResetRequestedResponse {
    this.auth.requestPasswordReset(body.email, ip);
    return FORGOT_PASSWORD_RESPONSE;
  }

  @Get('reset-password')
  @ApiProduces('text/html')
  @ApiOkResponse({
    description:
      'A self-contained page (no external asset) that posts the new password to POST /auth/reset-password.',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiOperation({
    summary: 'The password-reset page the reset e-mail links to',
    description:
      'Public. Reads `token` from its own URL in the browser and sends it with the new password to `POST /auth/reset-password`.',
  })
  resetPasswordPage(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', RESET_PAGE_CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer');
    return RESET_PASSWORD_PAGE;
  }

  @Post('reset-password')
  @HttpCode(200)
  @ApiOkResponse({ type: PasswordResetResponse })
  @ApiErrors('invalid_token')
  @ApiOperation({
    summary: 'Reset a password with a reset token',
    description: 'Public. Sets the new password and revokes every session of the user.',
  })
  async resetPassword(@Body() body: ResetPasswordDto, @Ip() ip: string): Promise<PasswordResetResponse> {
    await this.auth.resetPassword(body.token, body.new_password, ip);
    return { status: 'ok', sessions_revoked: true };
  }
}
