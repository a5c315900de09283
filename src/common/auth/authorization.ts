import { AppError } from '../errors';
import { Entitlement, EntitlementSource } from './entitlements';
import { Principal, Role, roleRank } from './principal';

/**
 * The one place a role, an operator-admin or an entitlement rule is decided. The route guards (through
 * @RequireRole, @RequireOperatorAdmin, @RequireEntitlement), the MCP tools (through their `requires`) and the
 * services that decide per record all call these functions, so each answers with the same 403 everywhere.
 */

/** Whether `role` is `minimum` or above (viewer < member < admin < owner). */
export function hasRole(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

/** 403 insufficient_role unless the caller holds `minimum` or above. */
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

/** 403 forbidden unless the caller is an operator admin. */
export function requireOperatorAdmin(
  principal: Pick<Principal, 'role' | 'isOperatorOrg'>,
  message = 'Only admins of the operator organization may do this.',
): void {
  if (!isOperatorAdmin(principal)) throw new AppError('forbidden', message);
}

/** 403 not_entitled unless the installed license grants `entitlement`. */
export function requireEntitlement(source: EntitlementSource, entitlement: Entitlement): void {
  if (!source.hasEntitlement(entitlement)) {
    throw new AppError('not_entitled', `The license does not include the "${entitlement}" entitlement.`);
  }
}

/** What a caller needs, declared as data (an MCP tool's `requires`). */
export interface Requirement {
  readonly entitlements?: readonly Entitlement[];
  readonly role?: Role;
}

/** Checks a requirement: the entitlements in order, then the role. */
export function authorize(principal: Principal, requirement: Requirement, source: EntitlementSource): void {
  for (const entitlement of requirement.entitlements ?? []) requireEntitlement(source, entitlement);
  if (requirement.role) requireRole(principal, requirement.role);
}
