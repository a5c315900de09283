import { Controller, Get } from '@nestjs/common';
import { InfrastructureReport, InfrastructureService } from './infrastructure.service';

@Controller('v1/infrastructure')
export class InfrastructureController {
  constructor(private readonly infrastructure: InfrastructureService) {}

  @Get()
  report(): Promise<InfrastructureReport> {
    return this.infrastructure.report();
  }
}
