import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { Idempotent } from '../idempotency/idempotency.types';
import {
  CreateTriggerDto,
  DeletedTriggerResponse,
  toTriggerResponse,
  TriggerListQuery,
  TriggerListResponse,
  TriggerResponse,
  UpdateTriggerDto,
} from './triggers.dto';
import { TriggersService } from './triggers.service';

@RequireEntitlement('triggers')
@Controller('v1/triggers')
export class TriggersController {
  constructor(private readonly triggers: TriggersService) {}

  @RequireRole('member')
  @Post()
  @HttpCode(201)
  @Idempotent()
  @ApiCreatedResponse({ type: TriggerResponse })
  @ApiErrors('dataset_not_found', 'query_not_understood')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateTriggerDto,
  ): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.create(principal.orgId, body));
  }

  @Get()
  @ApiOkResponse({ type: TriggerListResponse })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: TriggerListQuery,
  ): Promise<TriggerListResponse> {
    const page = await this.triggers.list(principal.orgId, query.limit ?? 50, query.cursor);
    return { triggers: page.triggers.map(toTriggerResponse), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOkResponse({ type: TriggerResponse })
  @ApiErrors('not_found')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.get(principal.orgId, id));
  }

  @RequireRole('member')
  @Patch(':id')
  @ApiOkResponse({ type: TriggerResponse })
  @ApiErrors('not_found', 'dataset_not_found', 'query_not_understood')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateTriggerDto,
  ): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.update(principal.orgId, id, body));
  }

  @RequireRole('member')
  @Delete(':id')
  @ApiOkResponse({ type: DeletedTriggerResponse })
  @ApiErrors('not_found')
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DeletedTriggerResponse> {
    await this.triggers.delete(principal.orgId, id);
    return { id, deleted: true };
  }
}
