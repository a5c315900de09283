/** Entitlement names of the license payload (DESIGN.md §3). */
export const ENTITLEMENTS = [
  'simulation',
  'jobs',
  'webhooks',
  'triggers',
  'connectors',
  'datasets',
  'sql_reports',
  'mcp',
  'runtime_library',
] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export function isEntitlement(value: string): value is Entitlement {
  return (ENTITLEMENTS as readonly string[]).includes(value);
}

export interface EntitlementSource {
  hasEntitlement(entitlement: Entitlement): boolean;
}

export const ENTITLEMENT_SOURCE = Symbol('ENTITLEMENT_SOURCE');
