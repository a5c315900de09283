import { Module } from '@nestjs/common';
import { ConnectorsModule } from '../connectors/connectors.module';
import { ContractModule } from '../contract/contract.module';
import { DatasetsModule } from '../datasets/datasets.module';
import { LicensingModule } from '../licensing/licensing.module';
import { QueryModule } from '../query/query.module';
import { RuntimeLibraryModule } from '../runtime-library/runtime-library.module';
import { TriggersModule } from '../triggers/triggers.module';
import { McpController } from './mcp.controller';
import { McpServerFactory } from './mcp-server.factory';
import { McpSessions } from './mcp-sessions';
import { McpToolsService } from './mcp-tools.service';
import { McpTransportService } from './mcp-transport.service';

@Module({
  imports: [
    ContractModule,
    DatasetsModule,
    LicensingModule,
    QueryModule,
    ConnectorsModule,
    RuntimeLibraryModule,
    TriggersModule,
  ],
  controllers: [McpController],
  providers: [McpToolsService, McpServerFactory, McpSessions, McpTransportService],
  exports: [McpServerFactory],
})
export class McpModule {}
