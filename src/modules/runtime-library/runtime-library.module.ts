import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { RuntimeLibraryController } from './runtime-library.controller';
import { RuntimeLibraryService } from './runtime-library.service';
import { RUNTIME_CLIENT } from './runtime.types';
import { SocketRuntimeClient } from './socket-runtime-client';

@Module({
  controllers: [RuntimeLibraryController],
  providers: [
    {
      provide: RUNTIME_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new SocketRuntimeClient(config.runtimeSocket, config.runtimeTimeoutS * 1000),
    },
    RuntimeLibraryService,
  ],
  exports: [RuntimeLibraryService],
})
export class RuntimeLibraryModule {}
