import {
  authorize,
  hasRole,
  isOperatorAdmin,
  requireOperatorAdmin,
  requireRole,
} from '../../src/common/auth/authorization';
import { Entitlement } from '../../src/common/auth/entitlements';
import { Principal, Role } from '../../src/common/auth/principal';
import { AppError } from '../../src/common/errors';

function principal(role: Role, isOperatorOrg = false): Principal {
  return { auth: 'api_key', orgId: 'org', orgName: 'Org', isOperatorOrg, role };
}

function codeOf(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

const licensed = (...granted: Entitlement[]) => ({ hasEntitlement: (e: Entitlement) => granted.includes(e) });

describe('the authorization vocabulary (common/auth/authorization.ts)', () => {
  it('orders roles viewer < member < admin < owner', () => {
    expect(hasRole('member', 'member')).toBe(true);
    expect(hasRole('owner', 'admin')).toBe(true);
    expect(hasRole('admin', 'owner')).toBe(false);
    expect(hasRole('viewer', 'member')).toBe(false);
  });

  it('answers insufficient_role below the minimum, with the default or the given message', () => {
    expect(codeOf(() => requireRole(principal('admin'), 'admin'))).toBeUndefined();
    expect(() => requireRole(principal('viewer'), 'member')).toThrow(
      'This action needs the member role or higher.',
    );
    expect(() => requireRole(principal('viewer'), 'member', 'Changing a dataset needs more.')).toThrow(
      'Changing a dataset needs more.',
    );
    expect(codeOf(() => requireRole(principal('viewer'), 'member'))).toBe('insufficient_role');
  });

  it('lets only admins and owners of the operator organization past the operator-admin check', () => {
    expect(isOperatorAdmin(principal('admin', true))).toBe(true);
    expect(isOperatorAdmin(principal('owner', true))).toBe(true);
    expect(isOperatorAdmin(principal('member', true))).toBe(false);
    expect(isOperatorAdmin(principal('owner', false))).toBe(false);
    expect(codeOf(() => requireOperatorAdmin(principal('owner', false)))).toBe('forbidden');
  });

  it('checks a declared requirement: each entitlement in order, then the role', () => {
    const requirement = {
      entitlements: ['datasets', 'sql_reports'] as Entitlement[],
      role: 'member' as Role,
    };
    expect(
      codeOf(() => authorize(principal('member'), requirement, licensed('datasets', 'sql_reports'))),
    ).toBe(undefined);
    expect(codeOf(() => authorize(principal('member'), requirement, licensed('datasets')))).toBe(
      'not_entitled',
    );
    expect(() => authorize(principal('member'), requirement, licensed('datasets'))).toThrow('"sql_reports"');
    expect(codeOf(() => authorize(principal('viewer'), requirement, licensed()))).toBe('not_entitled');
    expect(
      codeOf(() => authorize(principal('viewer'), requirement, licensed('datasets', 'sql_reports'))),
    ).toBe('insufficient_role');
    expect(codeOf(() => authorize(principal('viewer'), {}, licensed()))).toBeUndefined();
  });
});
