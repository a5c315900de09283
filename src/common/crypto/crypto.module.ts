import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config';
import { PasswordHasher } from './password-hasher';
import { SecretVault } from './secret-vault';
import { ServerSecrets } from './server-secrets';

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
    PasswordHasher,
  ],
  exports: [SecretVault, ServerSecrets, PasswordHasher],
})
export class CryptoModule {}
