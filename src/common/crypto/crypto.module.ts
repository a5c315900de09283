import { Global, Module } from '@nestjs/common';
import { ServerSecrets } from './server-secrets';

@Global()
@Module({ providers: [ServerSecrets], exports: [ServerSecrets] })
export class CryptoModule {}
