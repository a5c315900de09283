import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { LicenseResponse, toLicenseResponse } from './licensing.dto';
import { LicensingService } from './licensing.service';

@Controller('v1/license')
export class LicensingController {
  constructor(private readonly licensing: LicensingService) {}

  @Get()
  @ApiOkResponse({ type: LicenseResponse })
  show(): LicenseResponse {
    return toLicenseResponse(this.licensing.getStatus());
  }
}
