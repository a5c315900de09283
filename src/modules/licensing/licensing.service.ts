import { KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { Entitlement, ENTITLEMENTS, EntitlementSource } from '../../common/auth/entitlements';
import { keyIdOf } from '../../common/crypto/ed25519-key';
import { StartupError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { COMMUNITY_CAPS, COMMUNITY_ENTITLEMENTS } from './community-edition';
import { ClockRollback, LicenseClock } from './license-clock';
import { LicenseCaps } from './license-format';
import { LicenseRejectedError, licenseTimeState, VerifiedLicense, verifyLicense } from './license-verifier';
import { readEd25519PublicKey, scanTrustedKeys } from './trusted-keys';

const MAX_LICENSE_BYTES = 64 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export type LicenseStatus = 'active' | 'expired' | 'not_yet_valid' | 'unlicensed';

export interface LicenseSummary {
  readonly edition: string;
  readonly status: LicenseStatus;
}

export interface Caps {
  readonly maxDevices: number;
  readonly maxDevicesPerKey: number;
  /** Whom max_devices counts: each organization (community, so sign-ups cannot take the operator's slots) or all. */
  readonly maxDevicesScope: 'organization' | 'appliance';
}

export interface LicenseView {
  readonly status: LicenseStatus;
  readonly edition: string;
  readonly licenseId: string | null;
  readonly licensee: string | null;
  readonly entitlements: readonly Entitlement[];
  readonly caps: LicenseCaps;
  readonly issuedAt: Date | null;
  readonly notBefore: Date | null;
  readonly expiresAt: Date | null;
  readonly daysRemaining: number | null;
  readonly clockRollback: ClockRollback | null;
}

interface Effective {
  readonly status: LicenseStatus;
  readonly entitlements: readonly Entitlement[];
  readonly caps: LicenseCaps;
  readonly at: Date;
}

// No or expired license means the community edition; a present but bad one stops the daemon.
@Injectable()
export class LicensingService implements EntitlementSource, OnModuleInit {
  private license?: VerifiedLicense;
  private lastStatus?: LicenseStatus;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly clock: LicenseClock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.clock.start();
    const text = this.readLicenseFile();
    if (text === undefined) {
      this.logger.info(
        { event: 'license_absent', file: this.config.licenseFile },
        'no license installed: community edition',
      );
    } else {
      try {
        this.license = verifyLicense(text, this.trustedKeys());
      } catch (error) {
        if (!(error instanceof LicenseRejectedError)) throw error;
        throw new StartupError(
          error.event,
          `the license ${this.config.licenseFile} cannot be used: ${error.reason}`,
          {
            file: this.config.licenseFile,
            reason: error.reason,
          },
        );
      }
      const license = this.license;
      if (license.unknownEntitlements.length > 0) {
        this.logger.warn(
          { event: 'license_unknown_entitlements', names: license.unknownEntitlements },
          'the license names entitlements this version does not know; they grant nothing',
        );
      }
      this.logger.info(
        {
          event: 'license_loaded',
          license_id: license.id,
          kid: license.kid,
          licensee: license.licensee,
          edition: license.edition,
          expires_at: license.expiresAt.toISOString(),
        },
        'license verified',
      );
    }
    this.effective();
  }

  hasEntitlement(entitlement: Entitlement): boolean {
    return this.effective().entitlements.includes(entitlement);
  }

  getCaps(): Caps {
    const { caps, status } = this.effective();
    return {
      maxDevices: caps.max_devices,
      maxDevicesPerKey: caps.max_devices_per_key,
      maxDevicesScope: status === 'active' ? 'appliance' : 'organization',
    };
  }

  licenseSummary(): LicenseSummary {
    const { edition, status } = this.getStatus();
    return { edition, status };
  }

  getEntitlements(): readonly Entitlement[] {
    return this.effective().entitlements;
  }

  getStatus(): LicenseView {
    const current = this.effective();
    const license = this.license;
    const isActive = current.status === 'active';
    return {
      status: current.status,
      edition: isActive && license ? license.edition : 'community',
      licenseId: license?.id ?? null,
      licensee: license?.licensee ?? null,
      entitlements: current.entitlements,
      caps: current.caps,
      issuedAt: license?.issuedAt ?? null,
      notBefore: license?.notBefore ?? null,
      expiresAt: license?.expiresAt ?? null,
      daysRemaining: license
        ? Math.max(0, Math.floor((license.expiresAt.getTime() - current.at.getTime()) / DAY_MS))
        : null,
      clockRollback: this.clock.rollback() ?? null,
    };
  }

  private effective(): Effective {
    const at = this.clock.now();
    const status: LicenseStatus = this.license ? licenseTimeState(this.license, at) : 'unlicensed';
    this.noteStatus(status);
    if (status !== 'active' || !this.license) {
      return { status, entitlements: COMMUNITY_ENTITLEMENTS, caps: COMMUNITY_CAPS, at };
    }
    // A paid license never grants less than the free community edition.
    const granted = new Set<Entitlement>([...COMMUNITY_ENTITLEMENTS, ...this.license.entitlements]);
    return { status, entitlements: ENTITLEMENTS.filter((e) => granted.has(e)), caps: this.license.caps, at };
  }

  private noteStatus(status: LicenseStatus): void {
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    if (status === 'expired' || status === 'not_yet_valid') {
      this.logger.warn(
        {
          event: `license_${status}`,
          license_id: this.license?.id,
          expires_at: this.license?.expiresAt.toISOString(),
        },
        `the license is ${status.replace(/_/g, ' ')}: community edition in force`,
      );
    }
  }

  private readLicenseFile(): string | undefined {
    const file = this.config.licenseFile;
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new StartupError('license_invalid', `${file} is not a file`, { file });
      size = stat.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error instanceof StartupError
        ? error
        : new StartupError('license_invalid', `cannot read the license ${file}`, {
            file,
            reason: String(error),
          });
    }
    if (size > MAX_LICENSE_BYTES) {
      throw new StartupError(
        'license_invalid',
        `the license ${file} is larger than ${MAX_LICENSE_BYTES} bytes`,
        { file },
      );
    }
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new StartupError('license_invalid', `cannot read the license ${file}`, {
        file,
        reason: String(error),
      });
    }
  }

  private trustedKeys(): Map<string, KeyObject> {
    const scan = scanTrustedKeys(this.config.licenseKeysDir);
    for (const problem of scan.problems) {
      this.logger.error(
        { event: 'license_trusted_key_unreadable', ...problem },
        'a trusted license key is unreadable',
      );
    }
    const keys = new Map(scan.keys.map((k) => [k.kid, k.key]));
    const devKeyFile = this.config.licensePublicKeyFile;
    if (devKeyFile === undefined) return keys;
    if (this.config.nodeEnv === 'production') {
      this.logger.warn(
        { event: 'license_dev_key_ignored', file: devKeyFile },
        'SERVICE_LICENSE_PUBLIC_KEY_FILE is ignored in production',
      );
      return keys;
    }
    let key: KeyObject;
    try {
      key = readEd25519PublicKey(devKeyFile);
    } catch (error) {
      throw new StartupError(
        'license_public_key_invalid',
        'SERVICE_LICENSE_PUBLIC_KEY_FILE is not a readable Ed25519 public key',
        {
          file: devKeyFile,
          reason: error instanceof Error ? error.message : String(error),
        },
      );
    }
    const kid = keyIdOf(key);
    keys.set(kid, key);
    this.logger.warn(
      { event: 'license_dev_key_trusted', file: devKeyFile, kid, node_env: this.config.nodeEnv },
      `TRUSTING AN EXTRA LICENSE KEY FROM SERVICE_LICENSE_PUBLIC_KEY_FILE (${this.config.nodeEnv} only)`,
    );
    return keys;
  }
}
