import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const JSON_SCHEMA_OBJECT = {
  type: 'object',
  description: 'A JSON Schema (draft 2020-12) object.',
  properties: { type: { type: 'string', example: 'object' } },
  additionalProperties: true,
} as const;

export class McpToolResponse {
  @ApiProperty({ example: 'list_data' })
  name!: string;
  @ApiProperty()
  description!: string;
  @ApiProperty({ ...JSON_SCHEMA_OBJECT, description: 'The JSON Schema of the tool arguments.' })
  input_schema!: Record<string, unknown>;
}

export class McpToolListResponse {
  @ApiProperty({ type: [McpToolResponse], description: "The tools this caller's license and role show." })
  tools!: McpToolResponse[];
}

export class JsonRpcErrorResponse {
  @ApiProperty({ type: 'integer', example: -32602 })
  code!: number;
  @ApiProperty()
  message!: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'What the server adds, e.g. the error body of the service for a failed tool call.',
  })
  data?: Record<string, unknown>;
}

/** One JSON-RPC 2.0 answer of the MCP streamable HTTP transport (when it answers JSON rather than a stream). */
export class JsonRpcResponse {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] })
  id!: string | number | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The method result (MCP schema).',
  })
  result?: Record<string, unknown>;
  @ApiPropertyOptional({ type: JsonRpcErrorResponse })
  error?: JsonRpcErrorResponse;
}

export function toMcpToolResponse(tool: {
  name: string;
  description?: string;
  inputSchema: object;
}): McpToolResponse {
  return {
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.inputSchema as Record<string, unknown>,
  };
}
