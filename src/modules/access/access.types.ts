import type { Principal, RequestFacts } from '../../common/auth/principal';

export interface PresentedCredential {
  readonly value: string;
  readonly scheme: 'bearer' | 'x-api-key';
}

export interface Resolution {
  readonly principal: Principal;
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

export interface CredentialResolver {
  /** Throws AppError when the credential does not hold; may answer synchronously, so the guard costs no promise. */
  resolve(credential: PresentedCredential, request: RequestFacts): Resolution | Promise<Resolution>;
}

export const CREDENTIAL_RESOLVER = Symbol('CREDENTIAL_RESOLVER');
