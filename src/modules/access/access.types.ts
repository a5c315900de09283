import type { Principal, RequestFacts } from '../../common/auth/principal';

export interface PresentedCredential {
  readonly value: string;
  readonly scheme: 'bearer' | 'x-api-key';
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
