import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { OrganizationsService } from '../accounts/organizations.service';
import { SessionsService } from '../accounts/sessions.service';
import { ApiKeyRecord, looksLikeApiKey } from '../api-keys/api-keys.types';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { DEVICE_BINDER, DeviceBinder } from '../devices/devices.types';
import { KeyFailureThrottle } from './key-failure-throttle';
import { Principal, RequestFacts } from '../../common/auth/principal';
import { CredentialResolver, PresentedCredential, Resolution } from './access.types';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Tells API keys (`<prefix>_live_…`, Bearer or X-API-Key) from session JWTs (Bearer) by shape. */
@Injectable()
export class ApiKeyOrSessionResolver implements CredentialResolver {
  /**
   * A key's principal, held only as long as ApiKeysService caches the record: a revocation drops it. Organizations
   * never change name or operator status, so nothing else can make a principal stale.
   */
  private readonly keyPrincipals = new WeakMap<ApiKeyRecord, Principal>();

  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly sessions: SessionsService,
    private readonly organizations: OrganizationsService,
    private readonly failures: KeyFailureThrottle,
    @Inject(DEVICE_BINDER) private readonly binder: DeviceBinder,
  ) {}

  resolve(credential: PresentedCredential, request: RequestFacts): Resolution | Promise<Resolution> {
    if (looksLikeApiKey(credential.value)) return this.resolveApiKey(credential.value, request);
    if (credential.scheme === 'bearer' && JWT_SHAPE.test(credential.value))
      return this.resolveSession(credential.value);
    return this.reject(credential.value, request, 'not_an_api_key');
  }

  private resolveApiKey(rawKey: string, request: RequestFacts): Resolution | Promise<Resolution> {
    const key = this.apiKeys.peek(rawKey);
    if (key === null) return this.reject(rawKey, request, 'malformed_or_expired');
    const principal = key && this.keyPrincipals.get(key);
    if (key && principal) return this.admitKey(key, principal, request);
    return this.resolveApiKeyFromDatabase(rawKey, request);
  }

  private async resolveApiKeyFromDatabase(rawKey: string, request: RequestFacts): Promise<Resolution> {
    // A throttled address may still use a key this process accepted recently (on PostgreSQL, where keys are not
    // answered from memory, with one more lookup), but gets no more database lookups to guess with.
    if (!this.apiKeys.wasRecentlyAccepted(rawKey)) await this.failures.assertAllowed(request.ip);
    const key = await this.apiKeys.resolve(rawKey);
    if (!key) return this.reject(rawKey, request, 'unknown_revoked_or_expired');
    const org = await this.organizations.get(key.orgId);
    if (!org) return this.reject(rawKey, request, 'unknown_revoked_or_expired');
    const principal: Principal = {
      auth: 'api_key',
      orgId: org.id,
      orgName: org.name,
      isOperatorOrg: org.isOperator,
      role: key.role,
      keyId: key.id,
      keyLabel: key.label,
    };
    this.keyPrincipals.set(key, principal);
    return this.admitKey(key, principal, request);
  }

  private async reject(rawCredential: string, request: RequestFacts, reason: string): Promise<never> {
    await this.failures.assertAllowed(request.ip);
    return this.failures.recordFailure(request.ip, rawCredential, reason);
  }

  /** Capped keys bind the device on every request, cached or not. */
  private admitKey(
    key: ApiKeyRecord,
    principal: Principal,
    request: RequestFacts,
  ): Resolution | Promise<Resolution> {
    if (key.deviceLimit <= 0) return { principal };
    return this.binder
      .bind({ keyId: key.id, orgId: key.orgId, deviceLimit: key.deviceLimit }, request)
      .then((binding) => ({
        principal: { ...principal, deviceId: binding.deviceId },
        responseHeaders: binding.responseHeaders,
      }));
  }

  private async resolveSession(token: string): Promise<Resolution> {
    const session = await this.sessions.resolve(token);
    const org = await this.organizations.get(session.orgId);
    if (!org) throw new AppError('invalid_session');
    return {
      principal: {
        auth: 'session',
        orgId: org.id,
        orgName: org.name,
        isOperatorOrg: org.isOperator,
        role: session.role,
        userId: session.userId,
      },
    };
  }
}
