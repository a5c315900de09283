import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from './config';
import { APP_LOGGER, AppLogger } from './logging';

/** Makes the validated config and the logger injectable everywhere. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_LOGGER, useValue: logger },
      ],
      exports: [APP_CONFIG, APP_LOGGER],
    };
  }
}
