import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { SimulateRequest, SimulationResponse } from './simulation.dto';
import { SimulationService } from './simulation.service';

@Controller('v1/simulate')
@RequireEntitlement('simulation')
export class SimulationController {
  constructor(private readonly simulation: SimulationService) {}

  /**
   * Any role may simulate. The body is validated by the service rather than the global pipe, so that the common
   * shape skips the DTO classes (see SimulationService.validate); the contract still describes it by the DTO.
   */
  @Post()
  @HttpCode(200)
  @ApiBody({ type: SimulateRequest })
  @ApiOkResponse({ type: SimulationResponse })
  simulate(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SimulationResponse> {
    return this.simulation.simulate(principal, body);
  }
}
