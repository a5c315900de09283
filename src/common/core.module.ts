import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { APP_CONFIG, AppConfig } from './config';
import { APP_LOGGER, AppLogger } from './logging';

/** Makes the validated config, the logger and the clock injectable everywhere. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_LOGGER, useValue: logger },
        Clock,
      ],
      exports: [APP_CONFIG, APP_LOGGER, Clock],
    };
  }
}
