import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { FitRequest, FitResponse, MAX_FIT_VALUES, MIN_FIT_VALUES } from './data-fit.dto';
import { DataFitService } from './data-fit.service';

@Controller('v1/data')
@RequireEntitlement('datasets')
export class DataFitController {
  constructor(private readonly fits: DataFitService) {}

  @Post(':id/fit')
  @HttpCode(200)
  @ApiOkResponse({ type: FitResponse })
  @ApiErrors('dataset_not_found', 'column_not_numeric', 'insufficient_data', 'query_timeout')
  @ApiOperation({
    summary: 'Fit distributions to a numeric column',
    description: `Maximum-likelihood fits of each family to the column's non-null values under \`where\`, with AIC and the Kolmogorov–Smirnov statistic, lowest AIC first. At least ${MIN_FIT_VALUES} values (422 \`insufficient_data\`); above ${MAX_FIT_VALUES} rows an evenly spaced sample of them (\`sampled\`). Same access as a query.`,
  })
  fit(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: FitRequest,
  ): Promise<FitResponse> {
    return this.fits.fit(principal.orgId, id, body);
  }
}
