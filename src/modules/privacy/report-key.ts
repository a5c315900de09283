import { join } from 'node:path';
import { Ed25519Key, loadOrCreateEd25519Key } from '../../common/crypto/ed25519-key';

export const REPORT_KEY_FILE = 'privacy-report-ed25519.pem';

export interface ReportKey extends Ed25519Key {
  readonly publicKeyPem: string;
}

export function loadOrCreateReportKey(keysDir: string): ReportKey {
  const { privateKey, publicKey, kid } = loadOrCreateEd25519Key(join(keysDir, REPORT_KEY_FILE));
  return {
    privateKey,
    publicKey,
    kid,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
