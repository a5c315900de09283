import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { InfrastructureResponse, toInfrastructureResponse } from './health.dto';
import { InfrastructureService } from './infrastructure.service';

@Controller('v1/infrastructure')
export class InfrastructureController {
  constructor(private readonly infrastructure: InfrastructureService) {}

  @Get()
  @ApiOkResponse({ type: InfrastructureResponse })
  async report(): Promise<InfrastructureResponse> {
    return toInfrastructureResponse(await this.infrastructure.report());
  }
}
