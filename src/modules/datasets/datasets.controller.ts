import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireEntitlement } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { Idempotent } from '../idempotency/idempotency.types';
import { ConnectDataDto, ListDataQueryDto, SetFormulasDto } from './datasets.dto';
import { DatasetsService } from './datasets.service';
import { DataConnectService } from './data-connect.service';
import { FormulasService } from './formulas.service';

const isTrue = (value: string | undefined): boolean => value === 'true' || value === '1';

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
  @Idempotent()
  connect(@CurrentPrincipal() principal: Principal, @Body() body: ConnectDataDto): Promise<object> {
    return this.connector.connect(principal, body);
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListDataQueryDto): Promise<object> {
    return {
      datasets: await this.datasets.list(principal, {
        search: query.search,
        compact: isTrue(query.compact),
        allVersions: isTrue(query.all_versions),
      }),
    };
  }

  @Get(':id')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<object> {
    return this.datasets.get(principal, id);
  }

  @Get(':id/summary')
  summary(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<object> {
    return this.datasets.summary(principal, id);
  }

  @Get(':id/schema')
  schema(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<object> {
    return this.datasets.schema(principal, id);
  }

  @Get(':id/versions')
  async versions(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<object> {
    return { datasets: await this.datasets.versions(principal, id) };
  }

  @Put(':id/formulas')
  setFormulas(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: SetFormulasDto,
  ): Promise<object> {
    return this.formulas.set(principal, id, body.formulas);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.datasets.delete(principal, id);
  }
}
