import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConnectorsModule } from '../connectors/connectors.module';
import { DatasetsModule } from '../datasets/datasets.module';
import { QueryModule } from '../query/query.module';
import { RuntimeLibraryModule } from '../runtime-library/runtime-library.module';
import { ContractService } from './contract.service';
import { McpController } from './mcp.controller';
import { McpServerFactory } from './mcp-server.factory';
import { McpSessions } from './mcp-sessions';
import { McpToolsService } from './mcp-tools.service';
import { McpTransportService } from './mcp-transport.service';

@Module({
  imports: [DiscoveryModule, DatasetsModule, QueryModule, ConnectorsModule, RuntimeLibraryModule],
  controllers: [McpController],
  providers: [ContractService, McpToolsService, McpServerFactory, McpSessions, McpTransportService],
  exports: [McpServerFactory],
})
export class McpModule {}
