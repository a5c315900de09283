import pino, { DestinationStream, Logger } from 'pino';
import { redactSecrets } from './redact';

export type AppLogger = Logger;

/** Log lines held before a write: about ten request lines. */
const BATCH_BYTES = 4096;
/** The longest a line waits for its batch: a journal reader sees it this much later at most. */
const BATCH_DELAY_MS = 100;

type FlushableDestination = DestinationStream & { flush(callback?: (error?: Error) => void): void };

/**
 * Stdout, written in batches: one write per line, handed to the thread pool with its completion back on the event
 * loop, was the largest part of a request's cost after its answer. A line waits at most BATCH_DELAY_MS;
 * `logger.flush()` writes at once. A batch is one synchronous write on the event loop: no write is ever in flight,
 * so what is still held when the process exits is written then, after every earlier line and without a gap.
 */
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

/** Every logger of the process that writes to stdout shares one destination: one order, one exit handler. */
let stdout: FlushableDestination | undefined;

/** JSON lines on stdout; every logged object passes through secret redaction. */
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
