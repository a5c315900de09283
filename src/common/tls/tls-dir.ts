import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TlsFileError } from './tls-file-error';

/** Who made the certificate in `<data dir>/tls/`: only a generated one is ever renewed by the daemon. */
export type CertificateOrigin = 'generated' | 'installed';

export class TlsDir {
  readonly keyFile: string;
  readonly certFile: string;
  readonly chainFile: string;
  private readonly originFile: string;
  private readonly requestFile: string;

  constructor(readonly dir: string) {
    this.keyFile = join(dir, 'key.pem');
    this.certFile = join(dir, 'cert.pem');
    this.chainFile = join(dir, 'chain.pem');
    this.originFile = join(dir, 'origin');
    this.requestFile = join(dir, 'csr-names.json');
  }

  ensureWritable(): void {
    try {
      if (!existsSync(this.dir)) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if (!statSync(this.dir).isDirectory()) throw new TlsFileError(this.dir, 'is not a directory');
      accessSync(this.dir, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new TlsFileError(
        this.dir,
        `the TLS directory is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
  }

  hasCertificate(): boolean {
    return existsSync(this.certFile) && existsSync(this.keyFile);
  }

  hasKey(): boolean {
    return existsSync(this.keyFile);
  }

  origin(): CertificateOrigin {
    return existsSync(this.originFile) && readFileSync(this.originFile, 'utf8').trim() === 'installed'
      ? 'installed'
      : 'generated';
  }

  requestedNames(): string[] {
    if (!existsSync(this.requestFile)) return [];
    const parsed = JSON.parse(readFileSync(this.requestFile, 'utf8')) as { names?: unknown };
    return Array.isArray(parsed.names)
      ? parsed.names.filter((name): name is string => typeof name === 'string')
      : [];
  }

  rememberRequest(names: readonly string[]): void {
    this.ensureWritable();
    replaceFile(this.requestFile, `${JSON.stringify({ names })}\n`, 0o600);
  }

  writeKey(pem: string): void {
    this.ensureWritable();
    replaceFile(this.keyFile, pem, 0o600);
  }

  /** Each file is written beside its target and renamed over it, so the daemon never reads half a file. */
  writeCertificate(files: { cert: string; key?: string; chain: string }, origin: CertificateOrigin): void {
    this.ensureWritable();
    if (files.key !== undefined) replaceFile(this.keyFile, files.key, 0o600);
    if (files.chain === '') {
      if (existsSync(this.chainFile)) unlinkSync(this.chainFile);
    } else {
      replaceFile(this.chainFile, files.chain, 0o644);
    }
    replaceFile(this.certFile, files.cert, 0o644);
    replaceFile(this.originFile, `${origin}\n`, 0o644);
  }
}

function replaceFile(target: string, content: string, mode: number): void {
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, content, { mode, flag: 'wx' });
    chmodSync(temporary, mode);
    renameSync(temporary, target);
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw new TlsFileError(
      target,
      `cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

/** A key that other users may read is refused rather than served: it is no longer the appliance's alone. */
export function requirePrivateKeyFile(file: string): void {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o007) !== 0) {
    throw new TlsFileError(
      file,
      `the private key file is accessible by other users (mode ${mode.toString(8).padStart(4, '0')}; chmod 600 it)`,
    );
  }
}

export function readTlsFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new TlsFileError(
      file,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

export function applianceNames(extra: readonly string[]): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname().toLowerCase(), ...extra])];
}
