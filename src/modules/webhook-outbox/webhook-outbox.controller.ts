import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
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
  @ApiOperation({
    summary: 'List outbound webhook deliveries',
    description:
      'Newest first, 50 a page unless `limit` says otherwise; `job_id`, `fire_id` and `status` filter.',
  })
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
  @ApiOperation({
    summary: 'Redeliver an outbound webhook',
    description:
      'Asynchronous: the delivery is pending again and sent by the outbox. A delivery already pending answers 409 `conflict`.',
  })
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DeliveryResponse> {
    return toDeliveryResponse(await this.outbox.redeliver(principal.orgId, id));
  }
}
