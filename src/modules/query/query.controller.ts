import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  QueryBatchError,
  QueryBatchRequest,
  QueryBatchResponse,
  QueryRequest,
  QueryResponse,
  SqlReportRequest,
  SqlReportResponse,
} from './query.dto';
import { QueryService } from './query.service';

@Controller('v1/query')
@RequireEntitlement('datasets')
export class QueryController {
  constructor(private readonly queries: QueryService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: QueryResponse })
  @ApiErrors('dataset_not_found', 'query_not_understood', 'query_timeout')
  @ApiOperation({ summary: 'Query a dataset' })
  query(@CurrentPrincipal() principal: Principal, @Body() body: QueryRequest): Promise<QueryResponse> {
    return this.queries.query(principal, body);
  }

  @Post('batch')
  @HttpCode(200)
  @ApiExtraModels(QueryBatchError)
  @ApiOkResponse({ type: QueryBatchResponse, description: 'A query that fails answers its error in place.' })
  @ApiOperation({
    summary: 'Run several dataset queries',
    description: 'A query that fails answers its error in its place; the others still answer.',
  })
  batch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: QueryBatchRequest,
  ): Promise<QueryBatchResponse> {
    return this.queries.batch(principal, body);
  }

  @Post('sql')
  @HttpCode(200)
  @RequireEntitlement('sql_reports')
  @ApiOkResponse({ type: SqlReportResponse })
  @ApiErrors(
    'dataset_not_found',
    'dataset_not_converted',
    'read_only_violation',
    'result_too_large',
    'query_timeout',
  )
  @ApiOperation({
    summary: 'Run a read-only SQL report on a dataset',
    description: 'One read-only SELECT statement; anything else answers 422 `read_only_violation`.',
  })
  sql(@CurrentPrincipal() principal: Principal, @Body() body: SqlReportRequest): Promise<SqlReportResponse> {
    return this.queries.sqlReport(principal, body);
  }
}
