import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface NotifyMessage {
  /** The sender's PID as the kernel reports it (SCM_CREDENTIALS), the check systemd's NotifyAccess=main makes. */
  readonly pid: number;
  readonly fields: Readonly<Record<string, string>>;
}

export interface NotifySocket {
  readonly path: string;
  readonly messages: NotifyMessage[];
  waitFor(predicate: (m: NotifyMessage) => boolean, timeoutMs?: number): Promise<NotifyMessage>;
  close(): void;
}

// A real AF_UNIX SOCK_DGRAM receiver with SO_PASSCRED, as systemd's notify socket is; Node cannot bind one.
const RECEIVER = `
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
print(json.dumps({"bound": True}), flush=True)
while True:
    data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(12))
    pid = -1
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("iII", payload[:12])[0]
    print(json.dumps({"pid": pid, "text": data.decode()}), flush=True)
`;

/** Binds a notify socket in `dir` and records every datagram that reaches it. */
export async function openNotifySocket(dir: string): Promise<NotifySocket> {
  const path = join(dir, 'notify.sock');
  const child: ChildProcess = spawn('python3', ['-c', RECEIVER, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: NotifyMessage[] = [];
  let buffered = '';
  let bound: () => void = () => undefined;
  const isBound = new Promise<void>((resolve) => (bound = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffered.slice(0, newline)) as { bound?: boolean; pid?: number; text?: string };
      buffered = buffered.slice(newline + 1);
      if (line.bound) bound();
      else messages.push({ pid: line.pid ?? -1, fields: parseFields(line.text ?? '') });
    }
  });
  await isBound;
  return {
    path,
    messages,
    async waitFor(predicate, timeoutMs = 15000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = messages.find(predicate);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no matching notification; got ${JSON.stringify(messages)}`);
    },
    close: () => child.kill('SIGKILL'),
  };
}

function parseFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return fields;
}
