import { Module } from '@nestjs/common';
import { ContractController } from './contract.controller';
import { ContractDocument } from './contract-document.service';

@Module({
  controllers: [ContractController],
  providers: [ContractDocument],
  exports: [ContractDocument],
})
export class ContractModule {}
