import '../common/runtime/require-supported-node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

const SERVER_INFO = { name: 'decision-service', version: '0.1.0' };

function fail(message: string): never {
  process.stderr.write(`mcp-stdio: ${message}\n`);
  process.exit(1);
}

/** Tools run through the daemon's own auth, license and services. */
async function main(): Promise<void> {
  const apiKey = process.env.SERVICE_API_KEY;
  if (!apiKey) fail('SERVICE_API_KEY is not set.');
  const baseUrl = (process.env.SERVICE_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  let endpoint: URL;
  try {
    endpoint = new URL(`${baseUrl}/mcp`);
  } catch {
    fail(`SERVICE_BASE_URL "${baseUrl}" is not a URL.`);
  }

  const upstream = new Client(SERVER_INFO);
  const upstreamTransport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  try {
    await upstream.connect(upstreamTransport);
  } catch (error) {
    fail(
      `cannot open an MCP session at ${endpoint.href}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    upstream.request({ method: 'tools/list', params: request.params }, ListToolsResultSchema),
  );
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema),
  );
  let exiting = false;
  const exit = (): void => {
    if (exiting) return;
    exiting = true;
    // Ending the session frees its slot on the daemon at once instead of after the idle timeout.
    void upstreamTransport
      .terminateSession()
      .catch(() => undefined)
      .then(() => upstream.close())
      .finally(() => process.exit(0));
  };
  server.onclose = exit;
  // The SDK's stdio transport does not close when stdin ends, and the upstream session's open stream would keep
  // this process alive: a host that closes our stdin is gone, so the relay must go too.
  process.stdin.once('end', () => void server.close().finally(exit));
  process.stdin.once('close', () => void server.close().finally(exit));
  await server.connect(new StdioServerTransport());
}

void main();
