import { AppError } from '../errors';
import { Entitlement, EntitlementSource } from './entitlements';
import { Principal, Role, roleRank } from './principal';

// The one place role, operator-admin and entitlement rules are decided, so guards, MCP tools and services answer with
// the same 403.

export function hasRole(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

export function requireRole(
  principal: Pick<Principal, 'role'>,
  minimum: Role,
  message = `This action needs the ${minimum} role or higher.`,
): void {
  if (!hasRole(principal.role, minimum)) throw new AppError('insufficient_role', message);
}

/** An admin (or owner) of the operator organization: the only caller who sees appliance-wide things. */
export function isOperatorAdmin(principal: Pick<Principal, 'role' | 'isOperatorOrg'>): boolean {
  return principal.isOperatorOrg && hasRole(principal.role, 'admin');
}

export function requireOperatorAdmin(
  principal: Pick<Principal, 'role' | 'isOperatorOrg'>,
  message = 'Only admins of the operator organization may do this.',
): void {
  if (!isOperatorAdmin(principal)) throw new AppError('forbidden', message);
}

export function requireEntitlement(source: EntitlementSource, entitlement: Entitlement): void {
  if (!source.hasEntitlement(entitlement)) {
    throw new AppError('not_entitled', `The license does not include the "${entitlement}" entitlement.`);
  }
}

export interface Requirement {
  readonly entitlements?: readonly Entitlement[];
  readonly role?: Role;
}

export function authorize(principal: Principal, requirement: Requirement, source: EntitlementSource): void {
  for (const entitlement of requirement.entitlements ?? []) requireEntitlement(source, entitlement);
  if (requirement.role) requireRole(principal, requirement.role);
}
