import forge from 'node-forge';
import { canonicalName, keyMatchesCertificate, subjectAltNames } from './certificate-info';
import { TlsFileError } from './tls-file-error';

export interface CertificateSet {
  readonly cert: forge.pki.Certificate;
  readonly certFile: string;
  readonly key: forge.pki.rsa.PrivateKey;
  readonly keyFile: string;
  readonly chain: readonly forge.pki.Certificate[];
  readonly chainFile: string;
}

export interface SetRequirements {
  readonly now: Date;
  readonly names: readonly string[];
}

/** The one rule for "this certificate may be served"; the first broken rule is refused. */
export function validateCertificateSet(set: CertificateSet, requirements: SetRequirements): void {
  if (!keyMatchesCertificate(set.key, set.cert)) {
    throw new TlsFileError(set.keyFile, `the private key does not match the certificate in ${set.certFile}`);
  }
  requireValidNow(set.certFile, set.cert, requirements.now);
  const present = new Set(subjectAltNames(set.cert));
  const missing = requirements.names.map(canonicalName).filter((name) => !present.has(name));
  if (missing.length > 0) {
    throw new TlsFileError(set.certFile, `the certificate's subjectAltName lacks ${missing.join(', ')}`);
  }
  let child = set.cert;
  for (const [index, issuer] of set.chain.entries()) {
    if (!issued(issuer, child)) {
      const what = index === 0 ? 'the certificate' : `chain certificate ${index}`;
      throw new TlsFileError(
        set.chainFile,
        `chain certificate ${index + 1} did not issue ${what}: the chain does not lead to the certificate`,
      );
    }
    requireValidNow(set.chainFile, issuer, requirements.now);
    child = issuer;
  }
}

function requireValidNow(file: string, cert: forge.pki.Certificate, now: Date): void {
  if (now < cert.validity.notBefore) {
    throw new TlsFileError(
      file,
      `the certificate is not valid yet (from ${cert.validity.notBefore.toISOString()})`,
    );
  }
  if (now > cert.validity.notAfter) {
    throw new TlsFileError(file, `the certificate expired at ${cert.validity.notAfter.toISOString()}`);
  }
}

function issued(issuer: forge.pki.Certificate, child: forge.pki.Certificate): boolean {
  try {
    return issuer.verify(child);
  } catch {
    return false;
  }
}
