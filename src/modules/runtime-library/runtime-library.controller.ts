import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { ApiErrors } from '../../common/openapi';
import {
  RuntimeHealthResponse,
  RuntimeManifestResponse,
  toHealthResponse,
  toManifestResponse,
} from './runtime-library.dto';
import { RuntimeLibraryService } from './runtime-library.service';

/** Informational routes, open to every edition (DESIGN.md §3); authenticated like every /v1 route. */
@Controller('v1')
export class RuntimeLibraryController {
  constructor(
    private readonly runtime: RuntimeLibraryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('runtime/manifest')
  @ApiOkResponse({
    type: RuntimeManifestResponse,
    description: 'The modules and functions the runtime offers.',
  })
  @ApiErrors('runtime_unavailable', 'runtime_timeout')
  @ApiOperation({ summary: 'Get the runtime-library manifest' })
  async manifest(): Promise<RuntimeManifestResponse> {
    return toManifestResponse(await this.runtime.manifest());
  }

  @Get('libraries/health')
  @ApiOkResponse({ type: RuntimeHealthResponse })
  @ApiErrors('not_found', 'runtime_unavailable', 'runtime_timeout')
  @ApiOperation({
    summary: 'Get the runtime-library health',
    description: 'Answers 404 `not_found` unless SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED is set.',
  })
  async health(): Promise<RuntimeHealthResponse> {
    if (!this.config.runtimeLibraryHttpApiEnabled) throw new AppError('not_found');
    return toHealthResponse(await this.runtime.healthSnapshot());
  }
}
