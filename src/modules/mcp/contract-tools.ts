import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { McpTool } from './mcp-tool';

export function describeToolForContract(tool: McpTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    wraps: tool.endpoint,
    ...(tool.visibleWith ? { entitlement: tool.visibleWith } : {}),
    input_schema: toJsonSchemaCompat(tool.input, { pipeStrategy: 'input' }),
    output_schema: toJsonSchemaCompat(tool.output, { pipeStrategy: 'output' }),
    annotations: tool.annotations,
  };
}
