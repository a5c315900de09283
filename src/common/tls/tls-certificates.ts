import type { SecureContextOptions } from 'node:tls';
import { AppLogger } from '../logging';
import { certificateToPem, CertificateInfo, describeCertificate, privateKeyToPem } from './certificate-info';
import {
  ensureSelfSigned,
  LoadedCertificate,
  loadCertificate,
  ServedOrigin,
  TlsConfig,
} from './certificate-source';
import { TlsFileError } from './tls-file-error';

export interface TlsStatus {
  readonly mode: TlsConfig['tls'];
  readonly certificate?: CertificateInfo & { readonly origin: ServedOrigin };
}

const WARN_DAYS = [30, 7] as const;
const DAY_MS = 86_400_000;
const EXPIRY_CHECK_INTERVAL_MS = 6 * 60 * 60 * 1000;

interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void;
}

/** Swapped through `setSecureContext`: new handshakes use it while open connections keep theirs. */
export class TlsCertificates {
  private served?: LoadedCertificate;
  private server?: SecureContextTarget;
  private warnedAt?: { fingerprint: string; days: number };
  private expiryTimer?: NodeJS.Timeout;

  private constructor(
    private readonly config: TlsConfig,
    private readonly logger: AppLogger,
    private readonly now: () => Date,
  ) {}

  static open(config: TlsConfig, logger: AppLogger, now: () => Date = () => new Date()): TlsCertificates {
    const certificates = new TlsCertificates(config, logger, now);
    if (config.tls === 'off') return certificates;
    if (config.tls === 'self-signed') certificates.renewIfDue();
    certificates.served = loadCertificate(config, now());
    certificates.logServed('tls_certificate_loaded');
    return certificates;
  }

  static disabled(logger: AppLogger): TlsCertificates {
    return new TlsCertificates(
      {
        tls: 'off',
        tlsDir: '',
        tlsCertFile: undefined,
        tlsKeyFile: undefined,
        tlsChainFile: undefined,
        tlsSans: [],
      },
      logger,
      () => new Date(),
    );
  }

  get mode(): TlsConfig['tls'] {
    return this.config.tls;
  }

  serverOptions(): SecureContextOptions | undefined {
    if (this.served === undefined) return undefined;
    const { set } = this.served;
    return {
      minVersion: 'TLSv1.2',
      key: privateKeyToPem(set.key),
      cert: [set.cert, ...set.chain].map(certificateToPem).join(''),
    };
  }

  attach(server: SecureContextTarget): void {
    this.server = server;
    if (this.served === undefined || this.expiryTimer !== undefined) return;
    this.expiryTimer = setInterval(() => this.checkExpiry(), EXPIRY_CHECK_INTERVAL_MS);
    this.expiryTimer.unref();
  }

  detach(): void {
    clearInterval(this.expiryTimer);
    this.expiryTimer = undefined;
    this.server = undefined;
  }

  status(): TlsStatus {
    if (this.served === undefined) return { mode: this.config.tls };
    return {
      mode: this.config.tls,
      certificate: { ...describeCertificate(this.served.set.cert), origin: this.served.origin },
    };
  }

  reload(): boolean {
    if (this.served === undefined) return false;
    try {
      const loaded = loadCertificate(this.config, this.now());
      this.swapTo(loaded, 'tls_certificate_reloaded');
      return true;
    } catch (error) {
      this.logRefusal(error);
      return false;
    }
  }

  checkExpiry(): void {
    if (this.served === undefined) return;
    try {
      if (this.config.tls === 'self-signed' && this.served.origin === 'generated' && this.renewIfDue()) {
        this.swapTo(loadCertificate(this.config, this.now()), 'tls_certificate_renewed');
        return;
      }
    } catch (error) {
      this.logRefusal(error);
    }
    this.warnIfExpiring();
  }

  private renewIfDue(): boolean {
    return ensureSelfSigned(this.config, this.now()).renewed;
  }

  private swapTo(loaded: LoadedCertificate, event: string): void {
    this.served = loaded;
    const options = this.serverOptions();
    if (options !== undefined) this.server?.setSecureContext(options);
    this.logServed(event);
  }

  private warnIfExpiring(): void {
    const info = this.status().certificate;
    if (info === undefined) return;
    const daysLeft = Math.floor((info.notAfter.getTime() - this.now().getTime()) / DAY_MS);
    const threshold = [...WARN_DAYS].reverse().find((days) => daysLeft < days);
    if (threshold === undefined) return;
    if (this.warnedAt?.fingerprint === info.fingerprintSha256 && this.warnedAt.days <= threshold) return;
    this.warnedAt = { fingerprint: info.fingerprintSha256, days: threshold };
    this.logger.warn(
      {
        event: 'tls_certificate_expiring',
        days_left: daysLeft,
        expires_at: info.notAfter.toISOString(),
        fingerprint_sha256: info.fingerprintSha256,
        origin: info.origin,
      },
      `the served TLS certificate expires in ${daysLeft} days: install a new one (docs/tls.md)`,
    );
  }

  private logServed(event: string): void {
    const info = this.status().certificate!;
    this.logger.info(
      {
        event,
        mode: this.config.tls,
        origin: info.origin,
        subject: info.subject,
        sans: info.sans,
        fingerprint_sha256: info.fingerprintSha256,
        expires_at: info.notAfter.toISOString(),
      },
      'serving TLS certificate',
    );
    this.warnIfExpiring();
  }

  private logRefusal(error: unknown): void {
    const fields =
      error instanceof TlsFileError ? { file: error.file, problem: error.problem } : { err: error };
    this.logger.error(
      { event: 'tls_certificate_refused', ...fields },
      `the TLS certificate was not changed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
