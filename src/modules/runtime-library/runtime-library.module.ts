import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { RUNTIME_LIBRARY_STATUS } from '../engine/infrastructure.types';
import { RuntimeLibraryController } from './runtime-library.controller';
import { RuntimeLibraryService } from './runtime-library.service';
import { RUNTIME_CLIENT } from './runtime.types';
import { SocketRuntimeClient } from './socket-runtime-client';

/** Global so /v1/infrastructure (engine module) can read the runtime library's status. */
@Global()
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
    { provide: RUNTIME_LIBRARY_STATUS, useExisting: RuntimeLibraryService },
  ],
  exports: [RuntimeLibraryService, RUNTIME_LIBRARY_STATUS],
})
export class RuntimeLibraryModule {}
