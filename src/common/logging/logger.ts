import pino, { DestinationStream, Logger } from 'pino';
import { redactSecrets } from './redact';

export type AppLogger = Logger;

const BATCH_BYTES = 4096;
/** The longest a line waits for its batch: a journal reader sees it this much later at most. */
const BATCH_DELAY_MS = 100;

type FlushableDestination = DestinationStream & { flush(callback?: (error?: Error) => void): void };

// One write per line, handed to the thread pool, was the largest part of a request's cost after its answer. A batch is
// one synchronous write, so nothing is in flight and what is held at exit is written then, in order.
function batchedStdout(): FlushableDestination {
  const stream = pino.destination({ fd: 1, sync: true });
  let held = '';
  let timer: NodeJS.Timeout | undefined;
  const release = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (held === '') return;
    const batch = held;
    held = '';
    stream.write(batch);
  };
  process.on('exit', () => {
    try {
      release();
    } catch {
      // Exiting: a closed stdout loses the last lines.
    }
  });
  return {
    write(line: string): void {
      held += line;
      if (held.length >= BATCH_BYTES) {
        release();
      } else if (timer === undefined) {
        timer = setTimeout(release, BATCH_DELAY_MS);
        timer.unref();
      }
    },
    flush(callback?: (error?: Error) => void): void {
      release();
      stream.flush(callback);
    },
  };
}

let stdout: FlushableDestination | undefined;

export function createLogger(level: string, destination?: DestinationStream): AppLogger {
  return pino(
    {
      level,
      base: { service: 'decisiond' },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactSecrets(object) as Record<string, unknown>,
      },
    },
    destination ?? (stdout ??= batchedStdout()),
  );
}

export const APP_LOGGER = Symbol('APP_LOGGER');
