import { Module } from '@nestjs/common';
import { ContractController } from './contract.controller';
import { ContractDocument } from './contract-document';

@Module({
  controllers: [ContractController],
  providers: [ContractDocument],
  exports: [ContractDocument],
})
export class ContractModule {}
