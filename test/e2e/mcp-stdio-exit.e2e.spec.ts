import { ChildProcess, spawn } from 'node:child_process';
import { McpSessions } from '../../src/modules/mcp/mcp-sessions';
import { signupAccount } from '../factories/accounts';
import { STDIO_ENTRY } from '../support/mcp-clients';
import { startTestApp, TestApp } from '../support/test-app';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1.0.0' } },
};

describe('stdio MCP relay lifetime', () => {
  let t: TestApp;
  let apiKey: string;
  let relay: ChildProcess | undefined;

  beforeAll(async () => {
    t = await startTestApp();
    apiKey = (await signupAccount(t)).apiKey;
  });
  afterAll(async () => {
    // A relay that never exited would hold its session stream open and keep the daemon from closing.
    if (relay?.exitCode === null) relay.kill('SIGKILL');
    await t.close();
  });

  it('exits when its host closes stdin and ends its session on the daemon', async () => {
    const child = spawn(process.execPath, [STDIO_ENTRY], {
      env: { PATH: process.env.PATH ?? '', SERVICE_API_KEY: apiKey, SERVICE_BASE_URL: t.baseUrl },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    relay = child;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stdout = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('\n')) resolve();
      }),
    );
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    await answered;
    expect(JSON.parse(stdout.split('\n')[0])).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'decision-service' } },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(t.app.get(McpSessions).size).toBe(0);
  }, 20_000);
});
