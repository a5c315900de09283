export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Who is calling: resolved from an API key or a session token on every protected request. */
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

/** The credential as it arrived; `scheme` tells where it came from. */
export interface PresentedCredential {
  readonly value: string;
  readonly scheme: 'bearer' | 'x-api-key';
}

export interface RequestFacts {
  readonly ip: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Resolution result; `responseHeaders` lets device binding hand out its token. */
export interface Resolution {
  readonly principal: Principal;
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

export interface CredentialResolver {
  /**
   * Throws (or rejects with) AppError (invalid_api_key, invalid_session, device_* ...) when the credential does not
   * hold. May answer synchronously from memory: the guard then costs no promise.
   */
  resolve(credential: PresentedCredential, request: RequestFacts): Resolution | Promise<Resolution>;
}

export const CREDENTIAL_RESOLVER = Symbol('CREDENTIAL_RESOLVER');
