import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { Idempotent, IdempotencyOperation, IdempotentRetry } from '../idempotency/idempotency.types';
import {
  CompactDatasetResponse,
  ConnectDataDto,
  DataConnectResponse,
  DatasetListResponse,
  DatasetResponse,
  DatasetSchemaResponse,
  DatasetSummaryResponse,
  DatasetVersionsResponse,
  ListDataQueryDto,
  SetFormulasDto,
} from './datasets.dto';
import { DatasetsService } from './datasets.service';
import { DataConnectService } from './data-connect.service';
import { FormulasService } from './formulas.service';

const isTrue = (value: string | undefined): boolean => value === 'true' || value === '1';

// The roles of data connect, formulas and delete depend on the request (sharing, the owner), so the services
// decide them: insufficient_role and forbidden are listed per route rather than derived from a @RequireRole.
@Controller('v1/data')
@RequireEntitlement('datasets')
export class DatasetsController {
  constructor(
    private readonly datasets: DatasetsService,
    private readonly connector: DataConnectService,
    private readonly formulas: FormulasService,
  ) {}

  @Post('connect')
  @HttpCode(200)
  @Idempotent<DatasetsController>((datasets, retry) => datasets.connected(retry))
  @ApiOkResponse({
    type: DataConnectResponse,
    description: '`ready` with the new version, or `failed` when the source could not be read.',
  })
  @ApiErrors('not_found', 'insufficient_role')
  @ApiOperation({
    summary: 'Connect data from a connector as a dataset',
    description:
      "Reads the connector's rows into a new dataset version before answering: `ready`, or `failed` with a message when the source could not be read. Needs the `member` role; `visibility: shared` needs `admin` (403 `insufficient_role`).",
  })
  connect(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ConnectDataDto,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<DataConnectResponse> {
    return this.connector.connect(principal, body, operation);
  }

  /** The version an earlier run of a retried connect catalogued. */
  connected(retry: IdempotentRetry): Promise<DataConnectResponse | undefined> {
    return this.connector.connectedBy(retry.principal, retry.operationId);
  }

  @Get()
  @ApiExtraModels(CompactDatasetResponse)
  @ApiOkResponse({ type: DatasetListResponse })
  @ApiOperation({
    summary: 'List datasets',
    description:
      'The latest version of each dataset unless `all_versions`; `search` keeps the datasets whose name or column names hold every word; `compact` answers short entries. Not paged.',
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListDataQueryDto,
  ): Promise<DatasetListResponse> {
    return {
      datasets: await this.datasets.list(principal, {
        search: query.search,
        compact: isTrue(query.compact),
        allVersions: isTrue(query.all_versions),
      }),
    };
  }

  @Get(':id')
  @ApiOkResponse({ type: DatasetResponse })
  @ApiErrors('dataset_not_found')
  @ApiOperation({ summary: 'Get a dataset' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DatasetResponse> {
    return this.datasets.get(principal, id);
  }

  @Get(':id/summary')
  @ApiOkResponse({ type: DatasetSummaryResponse })
  @ApiErrors('dataset_not_found')
  @ApiOperation({ summary: "Get a dataset's summary" })
  summary(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DatasetSummaryResponse> {
    return this.datasets.summary(principal, id);
  }

  @Get(':id/schema')
  @ApiOkResponse({ type: DatasetSchemaResponse })
  @ApiErrors('dataset_not_found')
  @ApiOperation({ summary: "Get a dataset's schema" })
  schema(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DatasetSchemaResponse> {
    return this.datasets.schema(principal, id);
  }

  @Get(':id/versions')
  @ApiOkResponse({ type: DatasetVersionsResponse })
  @ApiErrors('dataset_not_found')
  @ApiOperation({ summary: "List a dataset's versions" })
  async versions(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DatasetVersionsResponse> {
    return { datasets: await this.datasets.versions(principal, id) };
  }

  @Put(':id/formulas')
  @ApiOkResponse({ type: DatasetSchemaResponse, description: 'The schema, with the formulas as set.' })
  @ApiErrors('dataset_not_found', 'forbidden', 'insufficient_role')
  @ApiOperation({
    summary: "Set a dataset's formula columns",
    description:
      'Replaces the formulas: every problem is reported at once and nothing changes unless all hold. Needs the `member` role, and the owner organization for a shared dataset (403 `forbidden`).',
  })
  setFormulas(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: SetFormulasDto,
  ): Promise<DatasetSchemaResponse> {
    return this.formulas.set(principal, id, body.formulas);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, its files removed.' })
  @ApiErrors('dataset_not_found', 'forbidden', 'insufficient_role')
  @ApiOperation({
    summary: 'Delete a dataset',
    description:
      'Removes its files too. Needs the `member` role, and the owner organization for a shared dataset (403 `forbidden`).',
  })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.datasets.delete(principal, id);
  }
}
