import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { WebhookSecretsService } from './webhook-secrets.service';
import {
  RotatedSigningSecretResponse,
  SigningSecretResponse,
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
  @ApiOkResponse({
    type: WebhookTestResponse,
    description: 'What the receiver answered to a signed test event.',
  })
  @ApiOperation({
    summary: 'Send a test webhook',
    description:
      'Sends a signed `webhook.test` event to `callback_url` now, under the egress policy, and answers what the receiver said.',
  })
  async test(
    @CurrentPrincipal() principal: Principal,
    @Body() body: WebhookTestRequest,
  ): Promise<WebhookTestResponse> {
    return toWebhookTestResponse(await this.webhooks.sendTest(principal.orgId, body.callback_url));
  }

  @Get('signing-secret')
  @RequireRole('admin')
  @ApiOkResponse({ type: SigningSecretResponse })
  @ApiOperation({ summary: 'Get the webhook signing secret', description: 'Created on first use.' })
  async signingSecret(@CurrentPrincipal() principal: Principal): Promise<SigningSecretResponse> {
    return toSigningSecretResponse(await this.secrets.currentSecret(principal.orgId));
  }

  @Post('signing-secret/rotate')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOkResponse({ type: RotatedSigningSecretResponse })
  @ApiOperation({
    summary: 'Rotate the webhook signing secret',
    description: 'Until `previous_valid_until`, deliveries carry a signature by the old secret too.',
  })
  async rotate(@CurrentPrincipal() principal: Principal): Promise<RotatedSigningSecretResponse> {
    return toRotationResponse(await this.secrets.rotate(principal.orgId));
  }
}
