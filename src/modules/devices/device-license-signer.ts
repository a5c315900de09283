import { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { signEd25519Jws, verifyEd25519Jws } from '../../common/crypto/ed25519-jws';
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
    return signEd25519Jws(claims, this.privateKey, this.kidValue);
  }

  verify(token: string, nowSeconds = Math.floor(Date.now() / 1000)): DeviceLicenseClaims | undefined {
    return verifyEd25519Jws<DeviceLicenseClaims>(token, this.publicKey, this.kidValue, nowSeconds);
  }
}
