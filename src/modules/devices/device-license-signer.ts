import { KeyObject, sign, verify } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { loadOrCreateEd25519Key } from '../../common/crypto/ed25519-key';
import { APP_LOGGER, AppLogger } from '../../common/logging';

export const DEVICE_LICENSE_KEY_FILE = 'device-license.ed25519.pem';

export interface DeviceLicenseClaims {
  readonly iss: string;
  readonly jti: string;
  readonly device_id: string;
  readonly key_id: string;
  readonly org_id: string;
  readonly edition: string;
  readonly entitlements: readonly string[];
  readonly iat: number;
  readonly exp: number;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The appliance's own Ed25519 key (created on first start, 0600) that signs device license tokens (JWS EdDSA). */
@Injectable()
export class DeviceLicenseSigner implements OnModuleInit {
  private privateKey!: KeyObject;
  private publicKey!: KeyObject;
  private kidValue!: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    const file = join(this.config.keysDir, DEVICE_LICENSE_KEY_FILE);
    const key = loadOrCreateEd25519Key(file);
    if (key.created) {
      this.logger.info(
        { event: 'device_license_key_created', file },
        'created the device license signing key',
      );
    }
    this.privateKey = key.privateKey;
    this.publicKey = key.publicKey;
    this.kidValue = key.kid;
  }

  get kid(): string {
    return this.kidValue;
  }

  publicKeyPem(): string {
    return this.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  sign(claims: DeviceLicenseClaims): string {
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid: this.kidValue })}.${b64(claims)}`;
    return `${input}.${sign(null, Buffer.from(input, 'ascii'), this.privateKey).toString('base64url')}`;
  }

  /** Verifies a token this appliance issued; returns its claims or undefined (bad signature, alg or expiry). */
  verify(token: string, nowSeconds = Math.floor(Date.now() / 1000)): DeviceLicenseClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    try {
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as {
        alg?: unknown;
        kid?: unknown;
      };
      if (header.alg !== 'EdDSA' || header.kid !== this.kidValue) return undefined;
      const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
      if (!verify(null, signed, this.publicKey, Buffer.from(parts[2], 'base64url'))) return undefined;
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as DeviceLicenseClaims;
      return typeof claims.exp === 'number' && claims.exp > nowSeconds ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}
