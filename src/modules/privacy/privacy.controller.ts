import { Controller, Get, Header } from '@nestjs/common';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { toPublicKeyResponse } from './privacy.dto';
import { PrivacyService } from './privacy.service';

@Controller('v1/admin/privacy-report')
@RequireRole('admin')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  /** Served as the exact signed bytes (canonical JSON), so a saved response verifies byte for byte. */
  @Get()
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('cache-control', 'no-store')
  report(@CurrentPrincipal() principal: Principal): Promise<string> {
    return this.privacy.signedReport(principal);
  }

  @Get('public-key')
  publicKey(@CurrentPrincipal() principal: Principal): { public_key_pem: string; kid: string } {
    return toPublicKeyResponse(this.privacy.publicKey(principal));
  }
}
