import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { Transaction, transactionOf } from '../../common/database';
import { hmacSha256Hex, ServerSecrets, sha256Hex } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { LRUCache } from 'lru-cache';
import { hasRole } from '../../common/auth/authorization';
import { AuditService } from '../audit/audit.service';
import { KEY_POLICY, KeyPolicy } from '../devices/devices.types';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, isWellFormedApiKey, keyPrefixOf } from './api-key-format';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyRecord, ApiKeyView, CreatedApiKey, KeyActor, NewApiKey } from './api-keys.types';

const CACHE_ENTRIES = 10_000;
const CACHE_TTL_MS = 30_000;
/** last_used_at is advisory: written at most once a minute per key, never on the request's critical path. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface CachedKey {
  readonly record: ApiKeyRecord;
  readonly expiresAtMs: number;
}

/** Cache index: plain SHA-256 (a quarter of the HMAC's cost); the key's 256 random bits make it unguessable. */
const cacheIndexOf = sha256Hex;

@Injectable()
export class ApiKeysService {
  private readonly cache = new LRUCache<string, CachedKey>({ max: CACHE_ENTRIES, ttl: CACHE_TTL_MS });
  private readonly lastUsedWritten = new Map<string, number>();
  /** Bumped on every revocation: a lookup that raced one is not cached (it may have read the key before the commit). */
  private revocationEpoch = 0;
  /** Only a lone daemon's cache answers: replicas resolve each request from the database, so revocations reach all. */
  private readonly isCacheAuthoritative: boolean;

  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly secrets: ServerSecrets,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Inject(KEY_POLICY) private readonly policy: KeyPolicy,
  ) {
    this.isCacheAuthoritative = config.databaseUrl === undefined;
  }

  /** Creates a key for the caller's org: role at most the caller's, expiry in the future, the key policy consulted. */
  async create(by: KeyActor, input: NewApiKey): Promise<CreatedApiKey> {
    const role = input.role ?? 'member';
    if (!hasRole(by.role, role)) {
      throw new AppError('insufficient_role', `A ${by.role} cannot create a key with the ${role} role.`);
    }
    if (input.expiresAt !== undefined && new Date(input.expiresAt).getTime() <= Date.now()) {
      throw AppError.validation([{ field: 'expires_at', problem: 'must be in the future' }]);
    }
    const deviceLimit = input.deviceLimit ?? 0;
    await this.policy.checkNewKey({ orgId: by.orgId, role, deviceLimit });
    return this.repository.writeTransaction((tx) => this.issue(by, { ...input, role, deviceLimit }, tx));
  }

  async issue(by: KeyActor, input: NewApiKey, tx: Transaction): Promise<CreatedApiKey> {
    const rawKey = generateApiKey(this.config.apiKeyPrefix);
    const entity = await this.repository.insert(
      {
        orgId: by.orgId,
        label: input.label,
        keyPrefix: keyPrefixOf(rawKey),
        keyHash: this.hash(rawKey),
        role: input.role ?? 'member',
        deviceLimit: input.deviceLimit ?? 0,
        createdBy: by.actor.id ?? by.actor.type,
        createdAt: new Date().toISOString(),
        expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
        revokedAt: null,
        lastUsedAt: null,
        idempotencyId: input.idempotencyId ?? null,
      },
      tx,
    );
    await this.audit.record(
      {
        event: 'key_created',
        orgId: by.orgId,
        actor: by.actor,
        ip: by.ip,
        target: { type: 'api_key', id: entity.id },
        details: {
          label: entity.label,
          role: entity.role,
          device_limit: entity.deviceLimit,
          key_prefix: entity.keyPrefix,
        },
      },
      tx,
    );
    return { ...toView(entity), rawKey };
  }

  async createdBy(orgId: string, idempotencyId: string): Promise<ApiKeyView | null> {
    const entity = await this.repository.findByIdempotency(orgId, idempotencyId);
    return entity ? toView(entity) : null;
  }

  async list(orgId: string): Promise<ApiKeyView[]> {
    return (await this.repository.listActive(orgId, new Date().toISOString())).map(toView);
  }

  /** Immediate: the cache entry goes as soon as the revocation commits. The org's last active key stays. */
  async revoke(by: KeyActor, keyId: string): Promise<{ id: string; revokedAt: string }> {
    const revokedAt = new Date().toISOString();
    await this.repository.transaction(async (tx) => {
      const key = await this.repository.findUnrevokedInOrg(by.orgId, keyId, tx);
      if (!key) throw new AppError('api_key_not_found');
      if (!hasRole(by.role, key.role)) {
        throw new AppError(
          'insufficient_role',
          `A ${by.role} cannot revoke a key with the ${key.role} role.`,
        );
      }
      if (!(await this.repository.revokeUnlessLast(by.orgId, keyId, revokedAt, tx))) {
        throw new AppError('cannot_revoke_last_key');
      }
      await this.audit.record(
        {
          event: 'key_revoked',
          orgId: by.orgId,
          actor: by.actor,
          ip: by.ip,
          target: { type: 'api_key', id: keyId },
          details: { label: key.label, key_prefix: key.keyPrefix },
        },
        transactionOf(tx),
      );
    });
    this.revocationEpoch += 1;
    // The cache is keyed by the raw key's digest, which the revoker does not have.
    for (const [index, entry] of [...this.cache.entries()]) {
      if (entry.record.id === keyId) this.cache.delete(index);
    }
    await this.policy.onKeyRevoked?.(keyId);
    return { id: keyId, revokedAt };
  }

  /** From memory alone: the record, `null` (malformed or expired), or `undefined` when only the database can tell. */
  peek(rawKey: string): ApiKeyRecord | null | undefined {
    if (!isWellFormedApiKey(rawKey)) return null;
    if (!this.isCacheAuthoritative) return undefined;
    const index = cacheIndexOf(rawKey);
    const entry = this.cache.get(index);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.expiresAtMs <= now) {
      this.cache.delete(index);
      return null;
    }
    this.noteUse(entry.record.id, now);
    return entry.record;
  }

  async resolve(rawKey: string): Promise<ApiKeyRecord | undefined> {
    const known = this.peek(rawKey);
    if (known !== undefined) return known ?? undefined;
    const epoch = this.revocationEpoch;
    const entity = await this.repository.findActiveByHash(this.hash(rawKey));
    if (!entity) return undefined;
    const entry = { record: toRecord(entity), expiresAtMs: expiryOf(entity) };
    if (epoch === this.revocationEpoch) this.cache.set(cacheIndexOf(rawKey), entry);
    const now = Date.now();
    if (entry.expiresAtMs <= now) return undefined;
    this.noteUse(entry.record.id, now);
    return entry.record;
  }

  /** Whether this process accepted the key recently: lets a throttled address still present it (docs/security.md). */
  wasRecentlyAccepted(rawKey: string): boolean {
    const entry = this.cache.get(cacheIndexOf(rawKey));
    return entry !== undefined && entry.expiresAtMs > Date.now();
  }

  private hash(rawKey: string): string {
    return hmacSha256Hex(this.secrets.apiKeyPepper, rawKey);
  }

  private noteUse(keyId: string, now: number): void {
    const last = this.lastUsedWritten.get(keyId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWritten.set(keyId, now);
    if (this.lastUsedWritten.size > CACHE_ENTRIES) this.lastUsedWritten.clear();
    this.repository.touchLastUsed(keyId, new Date(now).toISOString()).catch((error: unknown) => {
      this.logger.warn(
        { event: 'api_key_last_used_failed', key_id: keyId, err: error },
        'could not record key use',
      );
    });
  }
}

function toRecord(entity: ApiKeyEntity): ApiKeyRecord {
  return {
    id: entity.id,
    orgId: entity.orgId,
    label: entity.label,
    role: entity.role,
    deviceLimit: entity.deviceLimit,
    expiresAt: entity.expiresAt,
  };
}

function expiryOf(entity: ApiKeyEntity): number {
  return entity.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(entity.expiresAt);
}

function toView(entity: ApiKeyEntity): ApiKeyView {
  return {
    ...toRecord(entity),
    keyPrefix: entity.keyPrefix,
    createdAt: entity.createdAt,
    lastUsedAt: entity.lastUsedAt,
  };
}
