import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { APP_CONFIG, AppConfig } from './config';
import { APP_LOGGER, AppLogger } from './logging';
import { TlsCertificates } from './tls';

@Global()
@Module({})
export class CoreModule {
  static forRoot(
    config: AppConfig,
    logger: AppLogger,
    tls: TlsCertificates = TlsCertificates.disabled(logger),
  ): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_LOGGER, useValue: logger },
        Clock,
        { provide: TlsCertificates, useValue: tls },
      ],
      exports: [APP_CONFIG, APP_LOGGER, Clock, TlsCertificates],
    };
  }
}
