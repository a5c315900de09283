import forge from 'node-forge';
import { TlsFileError } from './tls-file-error';

export interface CertificateInfo {
  readonly subject: string;
  readonly issuer: string;
  readonly sans: readonly string[];
  readonly fingerprintSha256: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const SAN_DNS = 2;
interface AltName {
  readonly type: number;
  readonly value: string;
  readonly ip?: string;
}
const SAN_IP = 7;

/** Every certificate of a PEM file, in order; a file with none, or a block forge cannot read, is refused. */
export function parseCertificates(file: string, pem: string): forge.pki.Certificate[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0)
    throw new TlsFileError(file, 'holds no complete PEM certificate (truncated or not PEM)');
  return blocks.map((block, index) => {
    try {
      return forge.pki.certificateFromPem(block);
    } catch (error) {
      throw new TlsFileError(file, `certificate ${index + 1} cannot be read: ${messageOf(error)}`);
    }
  });
}

export function parsePrivateKey(file: string, pem: string): forge.pki.rsa.PrivateKey {
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]*-----END (RSA )?PRIVATE KEY-----/.test(pem)) {
    throw new TlsFileError(file, 'holds no complete PEM private key (truncated, encrypted or not PEM)');
  }
  try {
    return forge.pki.privateKeyFromPem(pem);
  } catch (error) {
    throw new TlsFileError(
      file,
      `the private key cannot be read (only RSA keys are supported): ${messageOf(error)}`,
    );
  }
}

export function certificateToPem(cert: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

export function privateKeyToPem(key: forge.pki.rsa.PrivateKey): string {
  return forge.pki.privateKeyToPem(key).replace(/\r\n/g, '\n');
}

export function keyMatchesCertificate(key: forge.pki.rsa.PrivateKey, cert: forge.pki.Certificate): boolean {
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  return publicKey.n !== undefined && publicKey.n.equals(key.n) && publicKey.e.equals(key.e);
}

export function subjectAltNames(cert: forge.pki.Certificate): string[] {
  const extension: { altNames?: readonly AltName[] } | undefined = cert.getExtension('subjectAltName');
  const names: string[] = [];
  for (const altName of extension?.altNames ?? []) {
    if (altName.type === SAN_DNS) names.push(altName.value.toLowerCase());
    if (altName.type === SAN_IP && altName.ip !== undefined) names.push(canonicalName(altName.ip));
  }
  return names;
}

/** `::1` and `0:0:0:0:0:0:0:1` are one address; host names compare case-insensitively. */
export function canonicalName(name: string): string {
  if (name.includes(':')) {
    try {
      return new URL(`http://[${name}]/`).hostname.slice(1, -1);
    } catch {
      return name.toLowerCase();
    }
  }
  return name.toLowerCase();
}

export function describeCertificate(cert: forge.pki.Certificate): CertificateInfo {
  return {
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    sans: subjectAltNames(cert),
    fingerprintSha256: fingerprintOf(cert),
    notBefore: cert.validity.notBefore,
    notAfter: cert.validity.notAfter,
  };
}

function fingerprintOf(cert: forge.pki.Certificate): string {
  const der = forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
  const hex = forge.md.sha256.create().update(der).digest().toHex().toUpperCase();
  return hex.match(/../g)!.join(':');
}

function distinguishedName(name: forge.pki.Certificate['subject']): string {
  return name.attributes
    .map((attribute) => `${attribute.shortName ?? attribute.name}=${String(attribute.value)}`)
    .join(', ');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
