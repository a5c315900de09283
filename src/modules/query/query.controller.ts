import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { QueryBatchRequest, QueryRequest, SqlReportRequest } from './query.dto';
import { QueryService } from './query.service';

@Controller('v1/query')
@RequireEntitlement('datasets')
export class QueryController {
  constructor(private readonly queries: QueryService) {}

  @Post()
  @HttpCode(200)
  query(@CurrentPrincipal() principal: Principal, @Body() body: QueryRequest): Promise<object> {
    return this.queries.query(principal, body);
  }

  @Post('batch')
  @HttpCode(200)
  batch(@CurrentPrincipal() principal: Principal, @Body() body: QueryBatchRequest): Promise<object> {
    return this.queries.batch(principal, body);
  }

  @Post('sql')
  @HttpCode(200)
  @RequireEntitlement('sql_reports')
  sql(@CurrentPrincipal() principal: Principal, @Body() body: SqlReportRequest): Promise<object> {
    return this.queries.sqlReport(principal, body);
  }
}
