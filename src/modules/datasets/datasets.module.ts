import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { ConnectorsModule } from '../connectors/connectors.module';
import { ConnectorsService } from '../connectors/connectors.service';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { StorageQuotaModule } from '../storage-quota/storage-quota.module';
import { DatasetSchema } from './dataset.entity';
import { DatasetRepository } from './dataset.repository';
import { DatasetsController } from './datasets.controller';
import { DatasetsService } from './datasets.service';
import { CONNECTOR_ROW_SOURCE, DataConnectService } from './data-connect.service';
import { FormulasService } from './formulas.service';

@Module({
  imports: [
    IdempotencyModule,
    DatabaseModule.forFeature([DatasetSchema]),
    ConnectorsModule,
    StorageQuotaModule,
  ],
  controllers: [DatasetsController],
  providers: [
    DatasetRepository,
    DatasetsService,
    DataConnectService,
    FormulasService,
    { provide: CONNECTOR_ROW_SOURCE, useExisting: ConnectorsService },
  ],
  exports: [DatasetsService, DataConnectService, FormulasService],
})
export class DatasetsModule {}
