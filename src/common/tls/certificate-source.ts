import forge from 'node-forge';
import { AppConfig } from '../config';
import {
  canonicalName,
  certificateToPem,
  parseCertificates,
  parsePrivateKey,
  privateKeyToPem,
  subjectAltNames,
} from './certificate-info';
import { generateKey, selfSignedCertificate } from './certificate-authoring';
import { CertificateSet, validateCertificateSet } from './certificate-set';
import { applianceNames, CertificateOrigin, readTlsFile, requirePrivateKeyFile, TlsDir } from './tls-dir';
import { existsSync } from 'node:fs';

export type TlsConfig = Pick<
  AppConfig,
  'tls' | 'tlsDir' | 'tlsCertFile' | 'tlsKeyFile' | 'tlsChainFile' | 'tlsSans'
>;

export type ServedOrigin = CertificateOrigin | 'files';

export interface LoadedCertificate {
  readonly set: CertificateSet;
  readonly origin: ServedOrigin;
}

export const RENEW_BEFORE_MS = 30 * 86_400_000;

export function loadCertificate(config: TlsConfig, now: Date): LoadedCertificate {
  if (config.tls === 'files') {
    const set = readCertificateSet(config.tlsCertFile!, config.tlsKeyFile!, config.tlsChainFile);
    validateCertificateSet(set, { now, names: config.tlsSans });
    return { set, origin: 'files' };
  }
  const dir = new TlsDir(config.tlsDir);
  const set = readCertificateSet(
    dir.certFile,
    dir.keyFile,
    existsSync(dir.chainFile) ? dir.chainFile : undefined,
  );
  const origin = dir.origin();
  // A generated certificate that lacks a newly configured name is made again rather than refused.
  validateCertificateSet(set, { now, names: origin === 'generated' ? [] : config.tlsSans });
  return { set, origin };
}

export function readCertificateSet(
  certFile: string,
  keyFile: string,
  chainFile: string | undefined,
): CertificateSet {
  const [cert, ...bundled] = parseCertificates(certFile, readTlsFile(certFile).toString('utf8'));
  requirePrivateKeyFile(keyFile);
  const key = parsePrivateKey(keyFile, readTlsFile(keyFile).toString('utf8'));
  const chained =
    chainFile === undefined ? [] : parseCertificates(chainFile, readTlsFile(chainFile).toString('utf8'));
  return { cert, certFile, key, keyFile, chain: [...bundled, ...chained], chainFile: chainFile ?? certFile };
}

/**
 * The key is kept across renewals, so a CSR made for it stays good; an installed certificate is never replaced here.
 */
export function ensureSelfSigned(config: TlsConfig, now: Date): { renewed: boolean } {
  const dir = new TlsDir(config.tlsDir);
  dir.ensureWritable();
  if (dir.hasCertificate()) {
    if (dir.origin() === 'installed') return { renewed: false };
    const [cert] = parseCertificates(dir.certFile, readTlsFile(dir.certFile).toString('utf8'));
    const names = applianceNames(config.tlsSans).map(canonicalName);
    const current = new Set(subjectAltNames(cert));
    const fresh =
      cert.validity.notAfter.getTime() - now.getTime() > RENEW_BEFORE_MS && cert.validity.notBefore <= now;
    if (fresh && names.every((name) => current.has(name))) return { renewed: false };
  }
  let keys;
  if (dir.hasKey()) {
    requirePrivateKeyFile(dir.keyFile);
    const privateKey = parsePrivateKey(dir.keyFile, readTlsFile(dir.keyFile).toString('utf8'));
    keys = { privateKey, publicKey: forge.pki.setRsaPublicKey(privateKey.n, privateKey.e) };
  } else {
    keys = generateKey();
    dir.writeKey(privateKeyToPem(keys.privateKey));
  }
  const cert = selfSignedCertificate(keys, applianceNames(config.tlsSans), now);
  dir.writeCertificate({ cert: certificateToPem(cert), chain: '' }, 'generated');
  return { renewed: true };
}
