import { Controller, Get } from '@nestjs/common';
import { toUserResponse } from '../accounts/accounts.dto';
import { AccountsService } from '../accounts/accounts.service';
import { CurrentPrincipal } from './access.decorators';
import { Principal } from './principal';

@Controller('v1/me')
export class MeController {
  constructor(private readonly accounts: AccountsService) {}

  /** `{organization, user?, key?: {id, label, role}, auth}`: `user` for sessions, `key` for API keys. */
  @Get()
  async me(@CurrentPrincipal() principal: Principal): Promise<object> {
    const user = principal.userId ? await this.accounts.getUser(principal.userId) : undefined;
    return {
      organization: { id: principal.orgId, name: principal.orgName, is_operator: principal.isOperatorOrg },
      ...(user ? { user: toUserResponse(user) } : {}),
      ...(principal.keyId
        ? { key: { id: principal.keyId, label: principal.keyLabel, role: principal.role } }
        : {}),
      ...(principal.deviceId ? { device_id: principal.deviceId } : {}),
      auth: principal.auth,
    };
  }
}
