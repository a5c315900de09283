import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadata } from '../../common/http';
import { REQUIRED_ENTITLEMENT } from '../../common/auth/auth.decorators';
import { requireEntitlement } from '../../common/auth/authorization';
import { Entitlement, ENTITLEMENT_SOURCE, EntitlementSource } from '../../common/auth/entitlements';

@Injectable()
export class EntitlementGuard implements CanActivate {
  private readonly requiredEntitlement: RouteMetadata<Entitlement>;

  constructor(
    reflector: Reflector,
    @Inject(ENTITLEMENT_SOURCE) private readonly source: EntitlementSource,
  ) {
    this.requiredEntitlement = new RouteMetadata(reflector, REQUIRED_ENTITLEMENT);
  }

  canActivate(context: ExecutionContext): boolean {
    const required = this.requiredEntitlement.of(context);
    if (required) requireEntitlement(this.source, required);
    return true;
  }
}
