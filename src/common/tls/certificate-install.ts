import forge from 'node-forge';
import {
  certificateToPem,
  CertificateInfo,
  describeCertificate,
  parseCertificates,
  parsePrivateKey,
  privateKeyToPem,
} from './certificate-info';
import { certificateRequest, generateKey } from './certificate-authoring';
import { validateCertificateSet } from './certificate-set';
import { TlsConfig } from './certificate-source';
import { openPkcs12 } from './pkcs12-bundle';
import { readTlsFile, requirePrivateKeyFile, TlsDir } from './tls-dir';
import { TlsFileError } from './tls-file-error';

export type InstallSource =
  | {
      readonly kind: 'pem';
      readonly certFile: string;
      readonly keyFile?: string;
      readonly chainFile?: string;
    }
  | { readonly kind: 'pkcs12'; readonly p12File: string; readonly passwordFile: string };

/** The appliance's own files are managed by these commands only in self-signed mode (and before TLS is on). */
function applianceDir(config: TlsConfig): TlsDir {
  if (config.tls === 'files') {
    throw new TlsFileError(
      config.tlsCertFile ?? 'SERVICE_TLS_CERT_FILE',
      'SERVICE_TLS=files serves this file: replace it (and SERVICE_TLS_KEY_FILE) yourself, then send SIGHUP',
    );
  }
  return new TlsDir(config.tlsDir);
}

/** The names are remembered so that `install` refuses a certificate that left one out. */
export function createCertificateRequest(
  config: TlsConfig,
  commonName: string,
  sans: readonly string[],
): string {
  const dir = applianceDir(config);
  dir.ensureWritable();
  let key: forge.pki.rsa.PrivateKey;
  if (dir.hasKey()) {
    requirePrivateKeyFile(dir.keyFile);
    key = parsePrivateKey(dir.keyFile, readTlsFile(dir.keyFile).toString('utf8'));
  } else {
    key = generateKey().privateKey;
    dir.writeKey(privateKeyToPem(key));
  }
  const names = [...new Set([commonName, ...sans, ...config.tlsSans])];
  const pem = certificateRequest(key, commonName, names);
  dir.rememberRequest(names);
  return pem;
}

/** Validates everything first; only a certificate that would be served replaces the appliance's files. */
export function installCertificate(config: TlsConfig, source: InstallSource, now: Date): CertificateInfo {
  const dir = applianceDir(config);
  const material = source.kind === 'pem' ? readPemSource(dir, source) : readPkcs12Source(source);
  validateCertificateSet(material.set, { now, names: [...config.tlsSans, ...dir.requestedNames()] });
  dir.writeCertificate(
    {
      cert: certificateToPem(material.set.cert),
      key: material.keyChanged ? privateKeyToPem(material.set.key) : undefined,
      chain: material.set.chain.map(certificateToPem).join(''),
    },
    'installed',
  );
  return describeCertificate(material.set.cert);
}

function readPemSource(dir: TlsDir, source: Extract<InstallSource, { kind: 'pem' }>) {
  const [cert, ...bundled] = parseCertificates(
    source.certFile,
    readTlsFile(source.certFile).toString('utf8'),
  );
  const keyFile = source.keyFile ?? dir.keyFile;
  if (source.keyFile === undefined && !dir.hasKey()) {
    throw new TlsFileError(
      keyFile,
      'the appliance has no key yet: run `decisiond tls csr` first, or pass --key',
    );
  }
  requirePrivateKeyFile(keyFile);
  const key = parsePrivateKey(keyFile, readTlsFile(keyFile).toString('utf8'));
  const chained =
    source.chainFile === undefined
      ? []
      : parseCertificates(source.chainFile, readTlsFile(source.chainFile).toString('utf8'));
  return {
    set: {
      cert,
      certFile: source.certFile,
      key,
      keyFile,
      chain: [...bundled, ...chained],
      chainFile: source.chainFile ?? source.certFile,
    },
    keyChanged: source.keyFile !== undefined,
  };
}

function readPkcs12Source(source: Extract<InstallSource, { kind: 'pkcs12' }>) {
  // Written with `echo` or an editor, a password file ends in a newline that is no part of the password.
  const password = readTlsFile(source.passwordFile)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  const { key, certificates } = openPkcs12(source.p12File, readTlsFile(source.p12File), password);
  const [cert, ...others] = certificates;
  return {
    set: {
      cert,
      certFile: source.p12File,
      key,
      keyFile: source.p12File,
      chain: orderChain(cert, others),
      chainFile: source.p12File,
    },
    keyChanged: true,
  };
}

function orderChain(
  leaf: forge.pki.Certificate,
  others: readonly forge.pki.Certificate[],
): forge.pki.Certificate[] {
  const remaining = [...others];
  const ordered: forge.pki.Certificate[] = [];
  let child = leaf;
  for (;;) {
    const index = remaining.findIndex(
      (candidate) => candidate !== child && child.isIssuer(candidate) && !isSelfSigned(child),
    );
    if (index < 0) break;
    child = remaining.splice(index, 1)[0];
    ordered.push(child);
  }
  return [...ordered, ...remaining];
}

function isSelfSigned(cert: forge.pki.Certificate): boolean {
  return cert.isIssuer(cert);
}
