import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config';
import { SecretVault } from './secret-vault';

/** Makes the SecretVault (AES-256-GCM for secrets at rest) injectable everywhere. */
@Global()
@Module({
  providers: [
    {
      provide: SecretVault,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new SecretVault({ configured: config.configEncryptionKey, keysDir: config.keysDir }),
    },
  ],
  exports: [SecretVault],
})
export class CryptoModule {}
