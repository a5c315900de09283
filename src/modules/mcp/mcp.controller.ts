import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { McpTransportService } from './mcp-transport.service';

/**
 * MCP over HTTP. Every route sits behind the global credential guard; the transports write the raw response
 * themselves (after `reply.hijack()`), so these handlers return nothing.
 */
@Controller('mcp')
export class McpController {
  constructor(private readonly transports: McpTransportService) {}

  @Get('tools')
  tools(@Req() request: FastifyRequest): object {
    return this.transports.toolList(request);
  }

  @Post()
  async post(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Get()
  async get(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Delete()
  async delete(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.streamable(p, request, reply);
  }

  @Get('sse')
  async sse(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.openSse(p, request, reply);
  }

  @Post('messages')
  async messages(
    @CurrentPrincipal() p: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.transports.sseMessage(p, request, reply);
  }
}
