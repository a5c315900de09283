import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { principalOf, RequestWithPrincipal } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { MeResponse, toMeResponse } from './accounts.dto';
import { AccountsService } from './accounts.service';

/** The JSON body for a cached API-key principal (one object per key while it stays cached), serialised once. */
const keyBodies = new WeakMap<Principal, string>();

@Controller('v1/me')
export class MeController {
  constructor(private readonly accounts: AccountsService) {}

  /**
   * The caller (`MeResponse`), serialised here. Takes the request rather than @CurrentPrincipal(): a custom decorator's value passes through the global
   * validation pipe, an asynchronous step this hot route has no use for; a key's answer is then synchronous and,
   * as the body cannot change while the key stays cached, serialised once.
   */
  @Get()
  @ApiOkResponse({ type: MeResponse })
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'Get the authenticated caller' })
  me(@Req() request: RequestWithPrincipal): string | Promise<string> {
    const principal = principalOf(request);
    if (principal.userId) {
      return this.accounts
        .getUser(principal.userId)
        .then((user) => JSON.stringify(toMeResponse(principal, user)));
    }
    let body = keyBodies.get(principal);
    if (body === undefined) {
      body = JSON.stringify(toMeResponse(principal, undefined));
      keyBodies.set(principal, body);
    }
    return body;
  }
}
