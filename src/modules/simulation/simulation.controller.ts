import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { SimulateRequest, SimulationResponse } from './simulation.dto';
import { SimulationService } from './simulation.service';

@Controller('v1/simulate')
@RequireEntitlement('simulation')
export class SimulationController {
  constructor(private readonly simulation: SimulationService) {}

  /** Any role may simulate. */
  @Post()
  @HttpCode(200)
  simulate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SimulateRequest,
  ): Promise<SimulationResponse> {
    return this.simulation.simulate(principal, body);
  }
}
