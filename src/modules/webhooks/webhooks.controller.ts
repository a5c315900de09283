import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { WebhookSecretsService } from './webhook-secrets.service';
import {
  toRotationResponse,
  toSigningSecretResponse,
  toWebhookTestResponse,
  WebhookTestRequest,
  WebhookTestResponse,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

@Controller('v1/webhooks')
@RequireEntitlement('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly secrets: WebhookSecretsService,
  ) {}

  @Post('test')
  @HttpCode(200)
  @RequireRole('member')
  async test(
    @CurrentPrincipal() principal: Principal,
    @Body() body: WebhookTestRequest,
  ): Promise<WebhookTestResponse> {
    return toWebhookTestResponse(await this.webhooks.sendTest(principal.orgId, body.callback_url));
  }

  @Get('signing-secret')
  @RequireRole('admin')
  async signingSecret(@CurrentPrincipal() principal: Principal): Promise<{ signing_secret: string }> {
    return toSigningSecretResponse(await this.secrets.currentSecret(principal.orgId));
  }

  @Post('signing-secret/rotate')
  @HttpCode(200)
  @RequireRole('admin')
  async rotate(
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ signing_secret: string; previous_valid_until: string }> {
    return toRotationResponse(await this.secrets.rotate(principal.orgId));
  }
}
