import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { keyIdOf } from './report-signature';

export const REPORT_KEY_FILE = 'privacy-report-ed25519.pem';

export interface ReportKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicKeyPem: string;
  readonly kid: string;
}

/** Loads the appliance's report key from the key directory, creating it (mode 0600) on first start. */
export function loadOrCreateReportKey(keysDir: string): ReportKey {
  const file = join(keysDir, REPORT_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  const privateKey = createPrivateKey(readFileSync(file, 'utf8'));
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: keyIdOf(publicKey),
  };
}
