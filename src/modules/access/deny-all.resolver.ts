import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { CredentialResolver, Resolution } from './principal';

/** Placeholder until credential stores exist: every credential is refused, so nothing is open by accident. */
@Injectable()
export class DenyAllResolver implements CredentialResolver {
  resolve(): Promise<Resolution> {
    return Promise.reject(new AppError('invalid_api_key'));
  }
}
