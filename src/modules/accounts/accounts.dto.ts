import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Length, MaxLength, MinLength } from 'class-validator';
import { Principal, ROLES, Role } from '../../common/auth/principal';
import { CreatedApiKeyResponse, toCreatedApiKeyResponse } from '../api-keys/api-keys.dto';
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

export class OrganizationResponse {
  @ApiProperty({ example: 'org_01hx3v9c2m' })
  id!: string;
  @ApiProperty({ example: 'Acme Operations' })
  name!: string;
}

export class UserResponse {
  @ApiProperty({ example: 'usr_01hx3v9c2m' })
  id!: string;
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  email!: string;
  @ApiProperty({ example: 'Ada Operator' })
  name!: string;
  @ApiProperty({ enum: ROLES })
  role!: Role;
  @ApiProperty({ description: 'Whether the address was confirmed through the link mailed at sign-up.' })
  email_verified!: boolean;
}

export class SignupResponse {
  @ApiProperty({ type: OrganizationResponse })
  organization!: OrganizationResponse;
  @ApiProperty({ type: UserResponse })
  user!: UserResponse;
  @ApiProperty({
    type: CreatedApiKeyResponse,
    description: 'The bootstrap owner key; raw_key is shown only here.',
  })
  api_key!: CreatedApiKeyResponse;
}

export class LoginResponse {
  @ApiProperty({ description: 'A session token: send it as `Authorization: Bearer <token>`.' })
  access_token!: string;
  @ApiProperty({ enum: ['bearer'] })
  token_type!: 'bearer';
  @ApiProperty({ description: 'Seconds until the token expires.', example: 604800 })
  expires_in!: number;
}

export class EmailVerifiedResponse {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
  @ApiProperty({ enum: [true] })
  verified!: true;
}

export class PasswordResetRequestedResponse {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
  @ApiProperty({ example: 'If an account exists for this address, a password reset link has been sent.' })
  message!: string;
}

export class PasswordResetResponse {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
  @ApiProperty({ enum: [true], description: 'Every session of the user has ended: log in again.' })
  sessions_revoked!: true;
}

export class MeOrganizationResponse extends OrganizationResponse {
  @ApiProperty({ description: 'The operator organization: its admins see appliance-wide things.' })
  is_operator!: boolean;
}

export class MeKeyResponse {
  @ApiProperty({ example: 'key_01hx3v9c2m' })
  id!: string;
  @ApiProperty({ example: 'ci runner' })
  label!: string;
  @ApiProperty({ enum: ROLES })
  role!: Role;
}

export class MeResponse {
  @ApiProperty({ type: MeOrganizationResponse })
  organization!: MeOrganizationResponse;
  @ApiPropertyOptional({ type: UserResponse, description: 'Present for a session token.' })
  user?: UserResponse;
  @ApiPropertyOptional({ type: MeKeyResponse, description: 'Present for an API key.' })
  key?: MeKeyResponse;
  @ApiPropertyOptional({ description: 'The device the key is bound to, when the request named one.' })
  device_id?: string;
  @ApiProperty({ enum: ['api_key', 'session'] })
  auth!: Principal['auth'];
}

export function toUserResponse(user: UserView): UserResponse {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    email_verified: user.emailVerified,
  };
}

export function toSignupResponse(account: CreatedAccount): SignupResponse {
  return {
    organization: { id: account.organization.id, name: account.organization.name },
    user: toUserResponse(account.user),
    api_key: toCreatedApiKeyResponse(account.apiKey),
  };
}

/** The caller as the credential resolved it; `user` only for a session, `key` only for an API key. */
export function toMeResponse(principal: Principal, user: UserView | undefined): MeResponse {
  return {
    organization: { id: principal.orgId, name: principal.orgName, is_operator: principal.isOperatorOrg },
    ...(user ? { user: toUserResponse(user) } : {}),
    ...(principal.keyId
      ? { key: { id: principal.keyId, label: principal.keyLabel ?? '', role: principal.role } }
      : {}),
    ...(principal.deviceId ? { device_id: principal.deviceId } : {}),
    auth: principal.auth,
  };
}

/** The same bytes whether or not the address has an account. */
export const FORGOT_PASSWORD_RESPONSE: Readonly<PasswordResetRequestedResponse> = Object.freeze({
  status: 'ok',
  message: 'If an account exists for this address, a password reset link has been sent.',
});
