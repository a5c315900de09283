import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeNotifyTransport } from '../../src/modules/systemd/notify-transport';

/** Receives one datagram on `address` ('\0'-prefixed for the abstract namespace) and prints it. */
function receiveOne(address: string): {
  child: ChildProcess;
  ready: Promise<void>;
  received: Promise<string>;
} {
  const script = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1].replace("@", "\\0", 1) if sys.argv[1].startswith("@") else sys.argv[1])
print("bound", flush=True)
print(s.recv(65536).decode().replace("\\n", "|"), flush=True)
`;
  const child = spawn('python3', ['-c', script, address], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onReady: () => void = () => undefined;
  let onReceived: (text: string) => void = () => undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  const received = new Promise<string>((r) => (onReceived = r));
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const lines = out.split('\n');
    if (lines.length > 1) onReady();
    if (lines.length > 2) onReceived(lines[1]);
  });
  return { child, ready, received };
}

describe('sd_notify native transport', () => {
  const transport = new NativeNotifyTransport();
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'ds-notify-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends a datagram to a socket path', async () => {
    const path = join(dir, 'notify.sock');
    const receiver = receiveOne(path);
    await receiver.ready;
    transport.send(path, 'READY=1\nSTATUS=ok');
    expect(await receiver.received).toBe('READY=1|STATUS=ok');
  });

  it('sends to an abstract-namespace address written with @', async () => {
    const address = `@ds-notify-test-${process.pid}`;
    const receiver = receiveOne(address);
    await receiver.ready;
    transport.send(address, 'WATCHDOG=1');
    expect(await receiver.received).toBe('WATCHDOG=1');
  });

  it('throws for an unreachable socket, a relative path and an empty message', () => {
    expect(() => transport.send(join(dir, 'absent.sock'), 'READY=1')).toThrow(/No such file/);
    expect(() => transport.send('relative.sock', 'READY=1')).toThrow(/absolute path/);
    expect(() => transport.send(join(dir, 'absent.sock'), '')).toThrow(/between 1 and/);
  });
});
