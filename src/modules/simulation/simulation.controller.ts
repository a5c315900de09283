import { Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { principalOf, RequestWithPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/openapi';
import { DataVariableDto, InputProvenanceResponse } from './data-inputs.dto';
import { SimulateRequest, SimulationResponse } from './simulation.dto';
import { actorOf } from '../audit/audit.types';
import { parseSimulation } from './simulation.types';
import { SimulationRuns } from './simulation-runs.service';
import { SimulationService } from './simulation.service';

@Controller('v1/simulate')
@RequireEntitlement('simulation')
export class SimulationController {
  constructor(
    private readonly simulation: SimulationService,
    private readonly runs: SimulationRuns,
  ) {}

  /**
   * Any role may simulate. The body is validated by the service rather than the global pipe, so that the common
   * shape skips the DTO classes (parseSimulation); the contract still describes it by the DTO. Takes
   * the request rather than @CurrentPrincipal() and @Body(), whose values pass through the global pipe (an
   * asynchronous step each), and answers the JSON text the service serialised while the run was being recorded.
   */
  @Post()
  @HttpCode(200)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiBody({ type: SimulateRequest })
  @ApiExtraModels(DataVariableDto, InputProvenanceResponse)
  @ApiOkResponse({ type: SimulationResponse })
  @ApiErrors(
    'correlation_matrix_invalid',
    'engine_busy',
    'engine_timeout',
    'engine_unavailable',
    'dataset_not_found',
    'column_not_numeric',
    'insufficient_data',
  )
  @ApiOperation({
    summary: 'Run a simulation',
    description:
      'Synchronous: answers when the engine has computed the result. For a run that should not hold the connection, submit a job (`POST /v1/jobs`).',
  })
  async simulate(@Req() request: RequestWithPrincipal): Promise<string> {
    const caller = principalOf(request);
    const parsed = parseSimulation(request.body);
    const computed = await this.simulation.simulate(parsed, { orgId: caller.orgId, actor: actorOf(caller) });
    return this.runs.recordAsJson(computed);
  }
}
