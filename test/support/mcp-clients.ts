import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from './daemon-process';

export const STDIO_ENTRY = join(REPO_ROOT, 'dist', 'cli', 'mcp-stdio.js');

function auth(key: string): RequestInit {
  return { headers: { authorization: `Bearer ${key}` } };
}

export async function connectStreamable(
  baseUrl: string,
  key: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: auth(key) });
  await client.connect(transport);
  return { client, transport };
}

export async function connectSse(
  baseUrl: string,
  key: string,
): Promise<{ client: Client; transport: SSEClientTransport }> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const transport = new SSEClientTransport(new URL(`${baseUrl}/mcp/sse`), { requestInit: auth(key) });
  await client.connect(transport);
  return { client, transport };
}

/** Spawns `node dist/cli/mcp-stdio.js` (what `npm run -s mcp:stdio` runs) and talks MCP to it over stdio. */
export async function connectStdio(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [STDIO_ENTRY],
    env: { PATH: process.env.PATH ?? '', SERVICE_API_KEY: key, SERVICE_BASE_URL: baseUrl },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

/** The API error body an isError tool result carries. */
export function toolErrorOf(result: unknown): { code: string; message: string; details?: unknown[] } {
  const r = result as { isError?: boolean; content: { type: string; text: string }[] };
  if (!r.isError) throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return (JSON.parse(r.content[0].text) as { error: { code: string; message: string } }).error;
}

export function structured<T = any>(result: unknown): T {
  const r = result as { isError?: boolean; structuredContent?: T; content: unknown };
  if (r.isError) throw new Error(`tool failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}
