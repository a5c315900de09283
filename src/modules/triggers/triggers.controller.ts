import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { Idempotent, IdempotencyOperation, IdempotentRetry } from '../idempotency/idempotency.types';
import {
  CalibrationResponse,
  CreateTriggerDto,
  DeletedTriggerResponse,
  EvaluationResponse,
  FireListQuery,
  FireListResponse,
  FireResponse,
  FireTriggerDto,
  OutcomeResponse,
  ReportOutcomeDto,
  toOutcomeResponse,
  toFireResponse,
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
  @Idempotent<TriggersController>((triggers, retry) => triggers.created(retry))
  @ApiCreatedResponse({ type: TriggerResponse })
  @ApiErrors('dataset_not_found', 'query_not_understood', 'conflict', 'correlation_matrix_invalid')
  @ApiOperation({
    summary: 'Create a trigger',
    description:
      'An organization keeps at most SERVICE_ORG_MAX_TRIGGERS (default 50) enabled scheduled triggers; one more is 409 `conflict`.',
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateTriggerDto,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.create(principal.orgId, body, operation));
  }

  async created(retry: IdempotentRetry): Promise<TriggerResponse | undefined> {
    const trigger = await this.triggers.createdBy(retry.principal.orgId, retry.operationId);
    return trigger ? toTriggerResponse(trigger) : undefined;
  }

  @Get()
  @ApiOkResponse({ type: TriggerListResponse })
  @ApiOperation({
    summary: 'List triggers',
    description: 'Oldest first, 50 a page unless `limit` says otherwise.',
  })
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
  @ApiOperation({ summary: 'Get a trigger' })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.get(principal.orgId, id));
  }

  @RequireRole('member')
  @Patch(':id')
  @ApiOkResponse({ type: TriggerResponse })
  @ApiErrors(
    'not_found',
    'dataset_not_found',
    'query_not_understood',
    'conflict',
    'correlation_matrix_invalid',
  )
  @ApiOperation({
    summary: 'Update a trigger',
    description:
      "A new condition or schedule restarts the trigger's evaluation. Enabling or scheduling one past SERVICE_ORG_MAX_TRIGGERS active scheduled triggers is 409 `conflict`.",
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateTriggerDto,
  ): Promise<TriggerResponse> {
    return toTriggerResponse(await this.triggers.update(principal.orgId, id, body));
  }

  @RequireRole('member')
  @Post(':id/fire')
  @HttpCode(200)
  @Idempotent<TriggersController>((triggers, retry) => triggers.fired(retry))
  @ApiOkResponse({
    type: FireResponse,
    description: 'The fire; condition_met false when the condition did not hold.',
  })
  @ApiErrors(
    'not_found',
    'conflict',
    'correlation_matrix_invalid',
    'engine_busy',
    'engine_timeout',
    'engine_unavailable',
  )
  @ApiOperation({
    summary: 'Fire a trigger now',
    description:
      "Reads the value (or takes `current_value`) and, when the condition holds, runs the simulation and queues the trigger's webhooks. The `for_s`, cooldown and keep-firing windows do not apply. A disabled trigger, or a value that cannot be read, answers 409 `conflict`.",
  })
  async fire(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: FireTriggerDto,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<FireResponse> {
    return toFireResponse(await this.triggers.fire(principal.orgId, id, body.current_value, operation));
  }

  async fired(retry: IdempotentRetry): Promise<FireResponse | undefined> {
    const fire = await this.triggers.firedBy(retry.principal.orgId, retry.params.id, retry.operationId);
    return fire ? toFireResponse(fire) : undefined;
  }

  @Post(':id/evaluate')
  @HttpCode(200)
  @ApiOkResponse({ type: EvaluationResponse })
  @ApiErrors('not_found')
  @ApiOperation({
    summary: 'Evaluate a trigger without firing it',
    description:
      'A dry run: reads the value and says whether the trigger would fire; runs no simulation and sends nothing.',
  })
  evaluate(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: FireTriggerDto,
  ): Promise<EvaluationResponse> {
    return this.triggers.evaluate(principal.orgId, id, body.current_value);
  }

  @Get(':id/fires')
  @ApiOkResponse({ type: FireListResponse })
  @ApiErrors('not_found')
  @ApiOperation({
    summary: "List a trigger's fires",
    description: 'Newest first, 50 a page unless `limit` says otherwise.',
  })
  async fires(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: FireListQuery,
  ): Promise<FireListResponse> {
    const page = await this.triggers.listFires(principal.orgId, id, query.limit ?? 50, query.cursor);
    return { fires: page.fires.map(toFireResponse), next_cursor: page.nextCursor };
  }

  @RequireRole('member')
  @Post(':id/fires/:fireId/outcome')
  @HttpCode(201)
  @ApiCreatedResponse({
    type: OutcomeResponse,
    description: 'The outcome, scored against the fire’s prediction.',
  })
  @ApiErrors('not_found', 'conflict')
  @ApiOperation({
    summary: 'Report the outcome of a fire',
    description:
      "Scored against the fire's prediction. Once per fire: a second report, or a fire that ran no simulation, answers 409 `conflict`. The reporter is kept and audited; the outcome counts toward calibration only when the reporter's role is one of the execution policy's `outcome_reporter_roles`.",
  })
  async reportOutcome(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('fireId') fireId: string,
    @Body() body: ReportOutcomeDto,
  ): Promise<OutcomeResponse> {
    return toOutcomeResponse(await this.triggers.reportOutcome(principal, id, fireId, body));
  }

  @Get(':id/calibration')
  @ApiOkResponse({ type: CalibrationResponse })
  @ApiErrors('not_found')
  @ApiOperation({
    summary: "Get a trigger's calibration",
    description: "Under the organization's current execution policy.",
  })
  calibration(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<CalibrationResponse> {
    return this.triggers.calibration(principal.orgId, id);
  }

  @RequireRole('member')
  @Delete(':id')
  @ApiOkResponse({ type: DeletedTriggerResponse })
  @ApiErrors('not_found')
  @ApiOperation({ summary: 'Delete a trigger' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DeletedTriggerResponse> {
    await this.triggers.delete(principal.orgId, id);
    return { id, deleted: true };
  }
}
