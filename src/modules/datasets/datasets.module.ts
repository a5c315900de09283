import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { DatasetSchema } from './dataset.entity';
import { DatasetRepository } from './dataset.repository';
import { DatasetsController } from './datasets.controller';
import { DatasetsService } from './datasets.service';
import { CONNECTOR_ROW_SOURCE, ConnectorRowSource, DataConnectService } from './data-connect.service';
import { AppError } from '../../common/errors';
import { FormulasService } from './formulas.service';

const noConnectors: ConnectorRowSource = {
  getForOrg: () => Promise.reject(new AppError('not_found', 'The connector was not found.')),
  readRows: () => {
    throw new AppError('not_found', 'The connector was not found.');
  },
};

@Module({
  imports: [DatabaseModule.forFeature([DatasetSchema])],
  controllers: [DatasetsController],
  providers: [
    DatasetRepository,
    DatasetsService,
    DataConnectService,
    FormulasService,
    { provide: CONNECTOR_ROW_SOURCE, useValue: noConnectors },
  ],
  exports: [DatasetsService, DataConnectService, FormulasService],
})
export class DatasetsModule {}
