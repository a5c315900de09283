import forge from 'node-forge';
import { isIP } from 'node:net';
import { constants, createPrivateKey, privateEncrypt, randomBytes } from 'node:crypto';

/** RSA 3072: the strength the appliance's own keys have (NIST's 128-bit level). */
export const RSA_BITS = 3072;
const GENERATED_VALIDITY_DAYS = 397;

export function generateKey(): forge.pki.rsa.KeyPair {
  return forge.pki.rsa.generateKeyPair({ bits: RSA_BITS, e: 0x10001 });
}

/** DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-256 (RFC 8017 §9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** forge's pure-JS RSA takes most of a second per 3072-bit signature, so node:crypto signs. */
function nativeSigner(key: forge.pki.rsa.PrivateKey): forge.pki.rsa.PrivateKey {
  const nodeKey = createPrivateKey(forge.pki.privateKeyToPem(key));
  const sign = (md: forge.md.MessageDigest): string => {
    const digest = Buffer.from(md.digest().getBytes(), 'binary');
    const digestInfo = Buffer.concat([SHA256_DIGEST_INFO, digest]);
    return privateEncrypt({ key: nodeKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString(
      'binary',
    );
  };
  return { ...key, sign };
}

function altNamesOf(names: readonly string[]): { type: number; value?: string; ip?: string }[] {
  return [...new Set(names)].map((name) =>
    isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name },
  );
}

export function selfSignedCertificate(
  keys: forge.pki.rsa.KeyPair,
  names: readonly string[],
  now: Date,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // Positive 128-bit serial: a leading 0 nibble keeps the DER integer from reading as negative.
  cert.serialNumber = `0${randomBytes(16).toString('hex')}`;
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + GENERATED_VALIDITY_DAYS * 86_400_000);
  const subject = [
    { name: 'commonName', value: names[0] },
    { name: 'organizationName', value: 'Decision Service appliance' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: altNamesOf(names) },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(nativeSigner(keys.privateKey), forge.md.sha256.create());
  return cert;
}

export function certificateRequest(
  key: forge.pki.rsa.PrivateKey,
  commonName: string,
  names: readonly string[],
): string {
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  csr.setSubject([{ name: 'commonName', value: commonName }]);
  csr.setAttributes([
    { name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames: altNamesOf(names) }] },
  ]);
  csr.sign(nativeSigner(key), forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr).replace(/\r\n/g, '\n');
}
