import { SetMetadata } from '@nestjs/common';
import { ErrorCode } from '../errors/catalogue';

export const API_ERRORS = 'openapi:errors';

/** Only the codes its guards, body and license do not already imply; the contract derives those. */
export const ApiErrors = (...codes: ErrorCode[]): MethodDecorator & ClassDecorator =>
  SetMetadata(API_ERRORS, codes);
