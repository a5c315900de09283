import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { LicenseResponse, toLicenseResponse } from './licensing.dto';
import { LicensingService } from './licensing.service';

@Controller('v1/license')
export class LicensingController {
  constructor(private readonly licensing: LicensingService) {}

  @Get()
  @ApiOkResponse({ type: LicenseResponse })
  @ApiOperation({ summary: 'Get the license status' })
  show(): LicenseResponse {
    return toLicenseResponse(this.licensing.getStatus());
  }
}
