import { Controller, Get, Headers, HttpCode, Post, Query, Req } from '@nestjs/common';
import { RawBodyRequest } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { FastifyRequest } from 'fastify';
import { ACCEPTS_ANY_BODY } from '../../common/http';
import { Public, RequireOperatorAdmin } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/openapi';
import {
  InboundAcceptedResponse,
  InboundDeliveryListResponse,
  InboundListDto,
  toInboundDeliveryResponse,
} from './repohost.dto';
import { InboundDeliveryRepository } from './inbound-delivery.repository';
import { RepohostService } from './repohost.service';

@Controller()
export class RepohostController {
  constructor(
    private readonly repohost: RepohostService,
    private readonly deliveries: InboundDeliveryRepository,
  ) {}

  @Public()
  @Post('webhooks/repohost')
  @RouteConfig(ACCEPTS_ANY_BODY)
  @HttpCode(202)
  @ApiAcceptedResponse({ type: InboundAcceptedResponse, description: 'Stored; processed in the background.' })
  @ApiErrors('invalid_signature', 'validation_failed')
  @ApiOperation({
    summary: 'Receive a repository-host webhook event',
    description:
      'Public; authenticated by the `X-Hub-Signature-256` HMAC of the body (401 `invalid_signature`). Deliveries are deduplicated by `X-GitHub-Delivery`. Answers 202 once stored; the event is processed asynchronously.',
  })
  receive(
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Headers('x-hub-signature-256') signature: string | undefined,
    @Headers('x-github-delivery') deliveryId: string | undefined,
    @Headers('x-github-event') event: string | undefined,
  ): Promise<InboundAcceptedResponse> {
    return this.repohost.receive({
      rawBody: request.rawBody,
      body: request.body,
      signature,
      deliveryId,
      event,
    });
  }

  @RequireOperatorAdmin('Only operator administrators see inbound deliveries.')
  @Get('v1/webhooks/inbound')
  @ApiOkResponse({ type: InboundDeliveryListResponse })
  @ApiErrors('forbidden')
  @ApiOperation({
    summary: 'List inbound repository-host deliveries',
    description:
      'Operator administrators only (else 403 `forbidden`). Newest first, 100 a page unless `limit` says otherwise; `before` keeps deliveries received before that time.',
  })
  async list(@Query() query: InboundListDto): Promise<InboundDeliveryListResponse> {
    const page = await this.deliveries.list({
      limit: query.limit ?? 100,
      before: query.before ? new Date(query.before) : undefined,
      cursor: query.cursor,
    });
    return { deliveries: page.items.map(toInboundDeliveryResponse), next_cursor: page.nextCursor };
  }
}
