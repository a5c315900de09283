import { statSync } from 'node:fs';
import { createConnection, createServer, Server } from 'node:net';
import { StartupError } from './errors';

/** How long a starting daemon waits for the holder of the lock to tell its PID. */
const HOLDER_ANSWER_TIMEOUT_MS = 2000;

/**
 * Holds the data dir for this daemon alone: a second daemon on it would share the SQLite file, the engine's sockets
 * and the scratch area in run/, and remove them when it stops. The lock is a listening socket in Linux's abstract
 * namespace named after the directory's device and inode (every path to the directory names the same lock): the
 * kernel hands it to one process at a time and frees it when that process ends, SIGKILL included, so a crashed
 * daemon never leaves a stale lock behind. The holder answers each connection with its PID, which the refused
 * daemon names. Offline tools (provision, rekey, the MCP stdio relay) do not take it.
 */
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

/** The PID the holder answers, or undefined when it does not answer in time. */
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
