import { readdirSync, readFileSync } from 'node:fs';

/** A process is gone when it no longer exists or is a zombie waiting for its reaper. */
export function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Live engine workers (`simulate --serve`) whose socket lies under `dir`: a daemon's pool, found from outside. */
export function servingWorkersUnder(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return cmdline.includes('--serve') && cmdline.some((arg) => arg.startsWith(dir)) && !isGone(pid);
      } catch {
        return false;
      }
    });
}

/** The one of these processes that is running (computing) rather than asleep on its socket, once there is one. */
export async function runningOneOf(pids: readonly number[]): Promise<number | undefined> {
  for (let i = 0; i < 200; i++) {
    const running = pids.filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).startsWith('R');
      } catch {
        return false;
      }
    });
    if (running.length === 1) return running[0];
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return undefined;
}
