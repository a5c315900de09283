import { SetMetadata } from '@nestjs/common';
import { Entitlement } from './entitlements';

export const REQUIRED_ENTITLEMENT = 'licensing:entitlement';

/** The license entitlement a route (or controller) needs; without it the answer is 403 not_entitled. */
export const RequireEntitlement = (entitlement: Entitlement): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ENTITLEMENT, entitlement);
