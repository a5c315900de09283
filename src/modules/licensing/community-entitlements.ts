import { Injectable } from '@nestjs/common';
import { COMMUNITY_ENTITLEMENTS, Entitlement, EntitlementSource } from './entitlements';

/** Until license verification exists, every appliance is community edition. */
@Injectable()
export class CommunityEntitlements implements EntitlementSource {
  hasEntitlement(entitlement: Entitlement): boolean {
    return COMMUNITY_ENTITLEMENTS.includes(entitlement);
  }
}
