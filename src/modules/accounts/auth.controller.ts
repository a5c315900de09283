import { Body, Controller, Get, HttpCode, Ip, Post, Query } from '@nestjs/common';
import { Public } from '../../common/auth/auth.decorators';
import {
  FORGOT_PASSWORD_RESPONSE,
  ForgotPasswordDto,
  LoginDto,
  ResetPasswordDto,
  SignupDto,
  toSignupResponse,
  VerifyQuery,
} from './accounts.dto';
import { AccountsService } from './accounts.service';
import { AuthService } from './auth.service';

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
  async signup(@Body() body: SignupDto, @Ip() ip: string) {
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
  async login(@Body() body: LoginDto, @Ip() ip: string) {
    const session = await this.auth.login(body.email, body.password, ip);
    return { access_token: session.token, token_type: 'bearer', expires_in: session.expiresIn };
  }

  @Get('verify')
  async verify(@Query() query: VerifyQuery, @Ip() ip: string) {
    await this.auth.verifyEmail(query.token, ip);
    return { status: 'ok', verified: true };
  }

  @Post('forgot-password')
  @HttpCode(200)
  forgotPassword(@Body() body: ForgotPasswordDto, @Ip() ip: string) {
    this.auth.requestPasswordReset(body.email, ip);
    return FORGOT_PASSWORD_RESPONSE;
  }

  @Post('reset-password')
  @HttpCode(200)
  async resetPassword(@Body() body: ResetPasswordDto, @Ip() ip: string) {
    await this.auth.resetPassword(body.token, body.new_password, ip);
    return { status: 'ok', sessions_revoked: true };
  }
}
