import { Entitlement, ENTITLEMENTS } from '../../common/auth/entitlements';

/** The community edition (no or expired license): everything but MCP extras and the runtime library. */
export const COMMUNITY_ENTITLEMENTS: readonly Entitlement[] = ENTITLEMENTS.filter(
  (e) => e !== 'mcp' && e !== 'runtime_library',
);
export const COMMUNITY_CAPS = Object.freeze({ max_devices: 3, max_devices_per_key: 1 });
