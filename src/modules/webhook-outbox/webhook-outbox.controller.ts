import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  DeliveryListQuery,
  DeliveryListResponse,
  DeliveryResponse,
  toDeliveryResponse,
} from './webhook-outbox.dto';
import { WebhookOutboxService } from './webhook-outbox.service';

@RequireEntitlement('webhooks')
@Controller('v1/webhooks/deliveries')
export class WebhookOutboxController {
  constructor(private readonly outbox: WebhookOutboxService) {}

  @Get()
  @ApiOkResponse({ type: DeliveryListResponse, description: 'Newest first.' })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: DeliveryListQuery,
  ): Promise<DeliveryListResponse> {
    const page = await this.outbox.list(principal.orgId, {
      jobId: query.job_id,
      fireId: query.fire_id,
      status: query.status,
      limit: query.limit ?? 50,
      cursor: query.cursor,
    });
    return { deliveries: page.views.map(toDeliveryResponse), next_cursor: page.nextCursor };
  }

  @RequireRole('member')
  @Post(':id/redeliver')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: DeliveryResponse, description: 'The delivery, pending again.' })
  @ApiErrors('not_found', 'conflict')
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DeliveryResponse> {
    return toDeliveryResponse(await this.outbox.redeliver(principal.orgId, id));
  }
}
