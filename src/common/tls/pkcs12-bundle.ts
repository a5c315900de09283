import forge from 'node-forge';
import { TlsFileError } from './tls-file-error';

export interface Pkcs12Contents {
  readonly key: forge.pki.rsa.PrivateKey;
  /** The leaf first (the certificate whose public key is the key's), then the rest in the bundle's order. */
  readonly certificates: readonly forge.pki.Certificate[];
}

export function openPkcs12(file: string, der: Buffer, password: string): Pkcs12Contents {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der.toString('binary')), false, password);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const problem = /mac|password/i.test(message)
      ? 'wrong PKCS#12 password (the MAC does not verify)'
      : `cannot be read as PKCS#12: ${message}`;
    throw new TlsFileError(file, problem);
  }
  const keyBags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ??
      []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const certBags = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [];
  const key = keyBags.find((bag) => bag.key !== undefined)?.key;
  if (key === undefined) throw new TlsFileError(file, 'holds no RSA private key');
  const certificates = certBags.flatMap((bag) => (bag.cert === undefined ? [] : [bag.cert]));
  const leafIndex = certificates.findIndex((cert) =>
    (cert.publicKey as forge.pki.rsa.PublicKey).n?.equals(key.n),
  );
  if (leafIndex < 0) throw new TlsFileError(file, 'holds no certificate for its private key');
  const [leaf] = certificates.splice(leafIndex, 1);
  return { key, certificates: [leaf, ...certificates] };
}
