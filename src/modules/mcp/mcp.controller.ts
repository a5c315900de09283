import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiProduces,
  getSchemaPath,
  ApiOperation,
} from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { JsonRpcResponse, McpToolListResponse } from './mcp.dto';
import { McpTransportService } from './mcp-transport.service';

const EVENT_STREAM = {
  'text/event-stream': {
    schema: { type: 'string', description: 'Server-sent events carrying JSON-RPC messages.' },
  },
};

/** MCP over HTTP; the transports write the raw response (after `reply.hijack()`), so handlers return nothing. */
@Controller('mcp')
@ApiExtraModels(JsonRpcResponse)
@ApiErrors('forbidden', 'origin_not_allowed')
export class McpController {
  constructor(private readonly transports: McpTransportService) {}

  @Get('tools')
  @ApiOkResponse({ type: McpToolListResponse })
  @ApiOperation({
    summary: 'List the MCP tools',
    description: "Each tool's name, description and input schema.",
  })
  tools(@Req() request: FastifyRequest): McpToolListResponse {
    return this.transports.toolList(request);
  }

  /** Streamable HTTP: a JSON-RPC request answers JSON or a stream; a notification or a response, 202. */
  @Post()
  @HttpCode(200)
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: 'The JSON-RPC answer (the session id comes in the Mcp-Session-Id header after initialize).',
    content: { 'application/json': { schema: { $ref: getSchemaPath(JsonRpcResponse) } }, ...EVENT_STREAM },
  })
  @ApiAcceptedResponse({ description: 'No body: the message was a notification or a response.' })
  @ApiErrors('validation_failed', 'not_found', 'mcp_session_limit_reached', 'not_acceptable')
  @ApiOperation({
    summary: 'Send an MCP message (Streamable HTTP)',
    description:
      'A JSON-RPC request answers JSON or an event stream; a notification or a response answers 202. `initialize` opens a session whose id comes in the `Mcp-Session-Id` header; later messages send it back.',
  })
  async post(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Get()
  @ApiOkResponse({
    description: 'The stream of server-initiated messages of the session.',
    content: EVENT_STREAM,
  })
  @ApiErrors('validation_failed', 'not_found', 'not_acceptable')
  @ApiOperation({
    summary: "Open an MCP session's event stream (Streamable HTTP)",
    description: 'The stream of server-initiated messages of the session named by `Mcp-Session-Id`.',
  })
  async get(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Delete()
  @ApiOkResponse({ description: 'No body: the session is closed.' })
  @ApiErrors('validation_failed', 'not_found')
  @ApiOperation({
    summary: 'End an MCP session (Streamable HTTP)',
    description: 'Closes the session named by `Mcp-Session-Id`.',
  })
  async delete(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Get('sse')
  @ApiOkResponse({
    description: 'The legacy SSE transport: an endpoint event, then JSON-RPC messages.',
    content: EVENT_STREAM,
  })
  @ApiErrors('mcp_session_limit_reached')
  @ApiOperation({
    summary: 'Open a legacy MCP SSE session',
    description:
      'The legacy HTTP+SSE transport: the first event names the endpoint, with its `sessionId`, to post messages to.',
  })
  async sse(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.openSse(p, request, reply);
  }

  @Post('messages')
  @HttpCode(202)
  @ApiAcceptedResponse({
    description: 'Taken; the answer comes on the SSE stream.',
    content: { 'text/plain': { schema: { type: 'string', enum: ['Accepted'] } } },
  })
  @ApiErrors('validation_failed', 'not_found')
  @ApiOperation({
    summary: 'Post a message to a legacy MCP SSE session',
    description:
      'Needs the `sessionId` query parameter from the endpoint event of `GET /mcp/sse`; the answer comes on that stream.',
  })
  async messages(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.sseMessage(p, request, reply);
  }
}
