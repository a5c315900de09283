import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal } from './access.decorators';
import { Principal } from './principal';

@Controller('v1/me')
export class MeController {
  @Get()
  me(@CurrentPrincipal() principal: Principal): object {
    return {
      organization: { id: principal.orgId, name: principal.orgName, is_operator: principal.isOperatorOrg },
      ...(principal.userId ? { user: { id: principal.userId, role: principal.role } } : {}),
      ...(principal.keyId ? { key: { id: principal.keyId, label: principal.keyLabel, role: principal.role } } : {}),
      auth: principal.auth,
    };
  }
}
