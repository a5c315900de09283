import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { QueryController } from './query.controller';
import { QueryService } from './query.service';

@Module({
  imports: [DatasetsModule],
  controllers: [QueryController],
  providers: [QueryService],
  exports: [QueryService],
})
export class QueryModule {}
