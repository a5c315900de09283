import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { Principal } from '../../common/auth/principal';
import { McpServerFactory } from './mcp-server.factory';
import { McpSession, McpSessions } from './mcp-sessions';
import { checkOrigin } from './origin-check';
import { McpToolListResponse, toMcpToolResponse } from './mcp.dto';

const SESSION_HEADER = 'mcp-session-id';
export const SSE_MESSAGE_PATH = '/mcp/messages';

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Hands the raw response to an SDK transport, keeping the headers already set (request id, device binding). */
function hijack(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
}

/** The media types Streamable HTTP requires a client to accept, per method (the SDK would answer a JSON-RPC 406). */
const REQUIRED_ACCEPT: Readonly<Record<string, readonly string[]>> = {
  POST: ['application/json', 'text/event-stream'],
  GET: ['text/event-stream'],
};

/** A 406 `not_acceptable` in the error body of every route, naming what to send, before the SDK sees the request. */
function checkAccept(request: FastifyRequest): void {
  const required = REQUIRED_ACCEPT[request.method] ?? [];
  const accept = headerValue(request, 'accept') ?? '';
  if (required.every((type) => accept.includes(type))) return;
  throw new AppError(
    'not_acceptable',
    `MCP over Streamable HTTP needs the header Accept: ${required.join(', ')}.`,
  );
}

@Injectable()
export class McpTransportService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly factory: McpServerFactory,
    private readonly sessions: McpSessions,
  ) {}

  toolList(request: FastifyRequest): McpToolListResponse {
    this.checkOrigin(request);
    return { tools: this.factory.listTools().map(toMcpToolResponse) };
  }

  async streamable(principal: Principal, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    this.checkOrigin(request);
    checkAccept(request);
    const sessionId = headerValue(request, SESSION_HEADER);
    if (sessionId !== undefined) {
      const session = this.sessions.claim(sessionId, 'streamable_http', principal);
      hijack(reply);
      await (session.transport as StreamableHTTPServerTransport).handleRequest(
        request.raw,
        reply.raw,
        request.body,
      );
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(request.body)) {
      throw AppError.validation([
        { field: SESSION_HEADER, problem: 'is required unless the request is an MCP initialize request' },
      ]);
    }
    const release = await this.sessions.reserve(principal);
    try {
      // Each request of the session re-resolves its credential; tools run with the latest principal.
      let session: McpSession | undefined;
      const server = this.factory.create(() => session?.principal ?? principal);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          session = this.sessions.add({ id, kind: 'streamable_http', principal, transport, server });
          release();
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) this.sessions.forget(transport.sessionId);
      };
      await server.connect(transport);
      hijack(reply);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } finally {
      release();
    }
  }

  async openSse(principal: Principal, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    this.checkOrigin(request);
    const release = await this.sessions.reserve(principal);
    let transport: SSEServerTransport;
    let server: ReturnType<McpServerFactory['create']>;
    try {
      hijack(reply);
      transport = new SSEServerTransport(SSE_MESSAGE_PATH, reply.raw);
      const holder: { session?: McpSession } = {};
      server = this.factory.create(() => holder.session?.principal ?? principal);
      holder.session = this.sessions.add({
        id: transport.sessionId,
        kind: 'sse',
        principal,
        transport,
        server,
      });
    } finally {
      release();
    }
    transport.onclose = () => this.sessions.forget(transport.sessionId);
    reply.raw.on('close', () => void this.sessions.close(transport.sessionId, 'stream_closed'));
    await server.connect(transport);
  }

  async sseMessage(principal: Principal, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    this.checkOrigin(request);
    const query = request.query as Record<string, unknown> | undefined;
    const sessionId = typeof query?.sessionId === 'string' ? query.sessionId : undefined;
    if (sessionId === undefined) {
      throw AppError.validation([
        { field: 'sessionId', problem: 'is required (from the endpoint event of /mcp/sse)' },
      ]);
    }
    const session = this.sessions.claim(sessionId, 'sse', principal);
    hijack(reply);
    // The SDK answers `Accepted` without a content type; the contract (and any client) is told it is text.
    reply.raw.setHeader('content-type', 'text/plain; charset=utf-8');
    await (session.transport as SSEServerTransport).handlePostMessage(request.raw, reply.raw, request.body);
  }

  private checkOrigin(request: FastifyRequest): void {
    checkOrigin(headerValue(request, 'origin'), headerValue(request, 'host'), {
      host: this.config.host,
      publicBaseUrl: this.config.publicBaseUrl,
    });
  }
}
