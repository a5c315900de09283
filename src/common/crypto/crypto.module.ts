import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config';
import { SecretVault } from './secret-vault';
import { ServerSecrets } from './server-secrets';

/** Makes the SecretVault (AES-256-GCM for secrets at rest) and the daemon's own ServerSecrets injectable everywhere. */
@Global()
@Module({
  providers: [
    {
      provide: SecretVault,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new SecretVault({ configured: config.configEncryptionKey, keysDir: config.keysDir }),
    },
    ServerSecrets,
  ],
  exports: [SecretVault, ServerSecrets],
})
export class CryptoModule {}
