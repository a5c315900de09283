import { promptsAllowed } from './terminal';

const FRAMES = ['|', '/', '-', '\\'];

export async function withProgress<T>(label: string, work: Promise<T>): Promise<T> {
  if (!process.stderr.isTTY || !promptsAllowed()) return work;
  const started = Date.now();
  let frame = 0;
  const timer = setInterval(() => {
    if (Date.now() - started < 1000) return;
    const seconds = Math.floor((Date.now() - started) / 1000);
    process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label} (${seconds} s)`);
  }, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (Date.now() - started >= 1000) process.stderr.write('\r\x1b[K');
  }
}
