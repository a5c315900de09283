import { statSync } from 'node:fs';
import { createConnection, createServer, Server } from 'node:net';
import { StartupError } from './errors';

const HOLDER_ANSWER_TIMEOUT_MS = 2000;

// A socket in Linux's abstract namespace named after the dir's device and inode: the kernel frees it when the holder
// ends, SIGKILL included, so a crash never leaves a stale lock. Offline tools do not take it.
export async function lockDataDir(dataDir: string): Promise<void> {
  if (process.platform !== 'linux') return;
  const address = lockAddressOf(dataDir);
  const server = createServer((socket) => socket.end(`${process.pid}\n`));
  try {
    await listen(server, address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const holderPid = await pidOfHolder(address);
    throw new StartupError(
      'data_dir_locked',
      `the data dir ${dataDir} is in use by another decisiond (pid ${holderPid ?? 'unknown'}); stop it first`,
      { data_dir: dataDir, holder_pid: holderPid },
    );
  }
  // Held until the process ends; it keeps nothing alive on its own.
  server.unref();
}

function lockAddressOf(dataDir: string): string {
  const { dev, ino } = statSync(dataDir, { bigint: true });
  return `\0decision-service/data-dir/${dev}:${ino}`;
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function pidOfHolder(address: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = createConnection(address);
    const done = (pid: number | undefined): void => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(HOLDER_ANSWER_TIMEOUT_MS, () => done(undefined));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => {
      const pid = Number.parseInt(answer, 10);
      done(Number.isSafeInteger(pid) ? pid : undefined);
    });
    socket.on('error', () => done(undefined));
  });
}
