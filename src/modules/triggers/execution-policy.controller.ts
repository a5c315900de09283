import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  ExecutionPolicyDto,
  ExecutionPolicyResponse,
  toExecutionPolicyResponse,
} from './execution-policy.dto';
import { ExecutionPolicyService } from './execution-policy.service';
import { DEFAULT_OUTCOME_REPORTER_ROLES } from './execution-policy.entity';
import { DEFAULT_MIN_OUTCOMES } from './trigger-calibration';

@RequireEntitlement('triggers')
@Controller('v1/execution-policy')
export class ExecutionPolicyController {
  constructor(private readonly policies: ExecutionPolicyService) {}

  @Get()
  @ApiOkResponse({ type: ExecutionPolicyResponse, description: 'The snapshot in force.' })
  @ApiOperation({ summary: 'Get the execution policy' })
  async get(@CurrentPrincipal() principal: Principal): Promise<ExecutionPolicyResponse> {
    return toExecutionPolicyResponse(await this.policies.current(principal.orgId));
  }

  @RequireRole('admin')
  @Put()
  @ApiOkResponse({
    type: ExecutionPolicyResponse,
    description: 'The new snapshot (the current one when nothing changed).',
  })
  @ApiErrors('conflict')
  @ApiOperation({
    summary: 'Set the execution policy',
    description:
      'Records a new snapshot, or answers the current one when nothing changed. A concurrent change answers 409 `conflict`: try again.',
  })
  async set(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ExecutionPolicyDto,
  ): Promise<ExecutionPolicyResponse> {
    const snapshot = await this.policies.set(
      principal.orgId,
      {
        mode: body.mode,
        minOutcomes: body.min_outcomes ?? DEFAULT_MIN_OUTCOMES,
        outcomeReporterRoles: body.outcome_reporter_roles ?? DEFAULT_OUTCOME_REPORTER_ROLES,
      },
      principal.userId ?? principal.keyId ?? null,
    );
    return toExecutionPolicyResponse(snapshot);
  }

  @Get('snapshots/:id')
  @ApiOkResponse({ type: ExecutionPolicyResponse, description: 'A snapshot, current or past.' })
  @ApiErrors('not_found')
  @ApiOperation({ summary: 'Get an execution-policy snapshot' })
  async snapshot(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ExecutionPolicyResponse> {
    return toExecutionPolicyResponse(await this.policies.snapshot(principal.orgId, id));
  }
}
