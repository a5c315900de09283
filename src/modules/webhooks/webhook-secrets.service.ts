import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { SecretVault } from '../../common/crypto/secret-vault';
import { LRUCache } from 'lru-cache';
import { generateSigningSecret, SigningSecrets } from './webhook-signer';
import { WebhookSigningSecret } from './webhook-secret.entity';
import { WebhookSecretRepository } from './webhook-secret.repository';

export interface RotationResult {
  readonly signingSecret: string;
  readonly previousValidUntil: string;
}

@Injectable()
export class WebhookSecretsService {
  /** Reads in flight by organization: deliveries signed at the same moment share one read of the row. */
  private readonly reading = new Map<string, Promise<WebhookSigningSecret>>();
  /** Opened secrets by row slot and sealed text: a delivery decrypts only a value it has not seen. */
  private readonly opened = new LRUCache<string, string>({ max: MAX_OPENED_SECRETS });

  constructor(
    private readonly secrets: WebhookSecretRepository,
    private readonly box: SecretVault,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async currentSecret(orgId: string): Promise<string> {
    return this.open(orgId, (await this.readOrCreate(orgId)).currentSealed, 'current');
  }

  async signingSecrets(orgId: string, now = new Date()): Promise<SigningSecrets> {
    const row = await this.sharedRead(orgId);
    const current = this.open(orgId, row.currentSealed, 'current');
    const inGrace =
      row.previousSealed !== null && row.previousUntil !== null && row.previousUntil > now.toISOString();
    if (!inGrace) return { current };
    return { current, previous: this.open(orgId, row.previousSealed as string, 'previous') };
  }

  async rotate(orgId: string, now = new Date()): Promise<RotationResult> {
    const row = await this.readOrCreate(orgId);
    const current = this.open(orgId, row.currentSealed, 'current');
    const next = generateSigningSecret();
    const previousValidUntil = new Date(now.getTime() + this.config.webhookSecretGraceS * 1000).toISOString();
    await this.secrets.save({
      ...row,
      currentSealed: this.box.seal(next, aad(orgId, 'current')),
      previousSealed: this.box.seal(current, aad(orgId, 'previous')),
      previousUntil: previousValidUntil,
      rotatedAt: now.toISOString(),
    });
    return { signingSecret: next, previousValidUntil };
  }

  /** Never a cached copy, so signing uses a rotated secret from the first read that starts after the rotation. */
  private sharedRead(orgId: string): Promise<WebhookSigningSecret> {
    let read = this.reading.get(orgId);
    if (!read) {
      read = this.readOrCreate(orgId).finally(() => this.reading.delete(orgId));
      this.reading.set(orgId, read);
    }
    return read;
  }

  private async readOrCreate(orgId: string): Promise<WebhookSigningSecret> {
    const existing = await this.secrets.find(orgId);
    if (existing) return existing;
    return this.secrets.insertIfMissing({
      orgId,
      currentSealed: this.box.seal(generateSigningSecret(), aad(orgId, 'current')),
      previousSealed: null,
      previousUntil: null,
      createdAt: new Date().toISOString(),
      rotatedAt: null,
    });
  }

  private open(orgId: string, sealed: string, slot: 'current' | 'previous'): string {
    const binding = aad(orgId, slot);
    const key = `${binding}\n${sealed}`;
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = this.box.open(sealed, binding);
      this.opened.set(key, secret);
    }
    return secret;
  }
}

const MAX_OPENED_SECRETS = 1024;

function aad(orgId: string, slot: 'current' | 'previous'): string {
  return `webhook_signing_secrets:${orgId}:${slot}`;
}
