import { SetMetadata } from '@nestjs/common';
import { ErrorCode } from '../errors/catalogue';

export const API_ERRORS = 'openapi:errors';

/**
 * The error codes a route answers beyond those its guards, body and license already imply (the contract derives
 * those). On a controller, they apply to each of its routes.
 */
export const ApiErrors = (...codes: ErrorCode[]): MethodDecorator & ClassDecorator =>
  SetMetadata(API_ERRORS, codes);
