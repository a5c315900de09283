export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export interface Principal {
  readonly auth: 'api_key' | 'session';
  readonly orgId: string;
  readonly orgName: string;
  /** The first organization of the appliance; its admins see appliance-wide things. */
  readonly isOperatorOrg: boolean;
  readonly role: Role;
  readonly userId?: string;
  readonly keyId?: string;
  readonly keyLabel?: string;
  readonly deviceId?: string;
}

export interface RequestFacts {
  readonly ip: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}
