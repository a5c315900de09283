import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { DataFitController } from './data-fit.controller';
import { DataFitService } from './data-fit.service';
import { QueryController } from './query.controller';
import { QueryService } from './query.service';

@Module({
  imports: [DatasetsModule],
  controllers: [QueryController, DataFitController],
  providers: [QueryService, DataFitService],
  exports: [QueryService, DataFitService],
})
export class QueryModule {}
