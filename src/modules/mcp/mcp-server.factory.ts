import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError, toAppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { Principal } from '../../common/auth/principal';
import { ContractDocument } from '../contract/contract-document.service';
import { McpTool } from './mcp-tool';
import { McpToolsService } from './mcp-tools.service';

export const SERVER_INFO = { name: 'decision-service', version: '0.1.0' };

export interface ToolListing {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown>;
  readonly annotations: McpTool['annotations'];
}

export function describeTool(tool: McpTool, contract: ContractDocument): ToolListing {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: contract.schemaOf(tool.input.name),
    // The same schema as the wrapped operation's answer, so a tool and its endpoint cannot disagree.
    outputSchema: tool.answers
      ? contract.schemaOf(tool.answers.name)
      : contract.responseSchemaOf(tool.endpoint),
    annotations: tool.annotations,
  };
}

export function toolError(error: AppError): CallToolResult {
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** The low-level `Server` lets validation fail with `validation_failed` and the tool set follow the license. */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpToolsService,
    private readonly contract: ContractDocument,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  listTools(): Tool[] {
    return this.tools.visibleTools().map((t) => describeTool(t, this.contract) as Tool);
  }

  async callTool(principal: Principal, name: string, rawArgs: unknown): Promise<CallToolResult> {
    const tool = this.tools.find(name);
    if (!tool) {
      const exists = this.tools.tools.some((t) => t.name === name);
      return toolError(
        exists
          ? new AppError('not_entitled', `The license does not include the tool "${name}".`)
          : new AppError('not_found', `There is no tool named "${name}".`),
      );
    }
    try {
      const call = tool.bind(rawArgs);
      this.tools.checkRequirements(principal, tool);
      const result = await call(principal);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      const appError = toAppError(error);
      if (appError.status >= 500 && appError.code === 'internal_error') {
        this.logger.error({ event: 'mcp_tool_failed', tool: name, err: error }, 'an MCP tool failed');
      }
      return toolError(appError);
    }
  }

  create(principal: () => Principal): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(principal(), request.params.name, request.params.arguments),
    );
    return server;
  }
}
