import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { InfrastructureResponse, toInfrastructureResponse } from './health.dto';
import { InfrastructureService } from './infrastructure.service';

@Controller('v1/infrastructure')
export class InfrastructureController {
  constructor(private readonly infrastructure: InfrastructureService) {}

  @Get()
  @ApiOkResponse({ type: InfrastructureResponse })
  @ApiOperation({
    summary: 'Get the engine infrastructure report',
    description: 'Engine mode, engine version and the last health check: the authoritative engine signal.',
  })
  async report(): Promise<InfrastructureResponse> {
    return toInfrastructureResponse(await this.infrastructure.report());
  }
}
