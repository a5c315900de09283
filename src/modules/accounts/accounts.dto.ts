import { IsEmail, IsOptional, IsString, Length, MaxLength, MinLength } from 'class-validator';
import type { CreatedApiKey } from '../api-keys/api-keys.types';
import { toCreatedApiKeyResponse } from '../api-keys/api-keys.dto';
import { CreatedAccount, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, UserView } from './accounts.types';

export class SignupDto {
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, {
    message: `password must be at least ${MIN_PASSWORD_LENGTH} characters long`,
  })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  organization_name?: string;
}

export class LoginDto {
  @IsString()
  @Length(1, 254)
  email!: string;

  @IsString()
  @Length(1, MAX_PASSWORD_LENGTH)
  password!: string;
}

export class VerifyQuery {
  @IsString()
  @Length(1, 200)
  token!: string;
}

export class ForgotPasswordDto {
  @IsEmail()
  @MaxLength(254)
  email!: string;
}

export class ResetPasswordDto {
  @IsString()
  @Length(1, 200)
  token!: string;

  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, {
    message: `new_password must be at least ${MIN_PASSWORD_LENGTH} characters long`,
  })
  @MaxLength(MAX_PASSWORD_LENGTH)
  new_password!: string;
}

export function toUserResponse(user: UserView): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    email_verified: user.emailVerified,
  };
}

export function toSignupResponse(account: CreatedAccount): Record<string, unknown> {
  const key: CreatedApiKey = account.apiKey;
  return {
    organization: { id: account.organization.id, name: account.organization.name },
    user: toUserResponse(account.user),
    api_key: toCreatedApiKeyResponse(key),
  };
}

/** The same bytes whether or not the address has an account. */
export const FORGOT_PASSWORD_RESPONSE = Object.freeze({
  status: 'ok',
  message: 'If an account exists for this address, a password reset link has been sent.',
});
